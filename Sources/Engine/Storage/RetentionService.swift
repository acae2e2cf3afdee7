import ApplianceBase
import Foundation
import ServiceLifecycle

/// Runs retention when a file is finished (`wake`) and on a timer, until shutdown.
package struct RetentionService: Service, CustomStringConvertible {
    package var description: String { "RetentionService" }
    package let retention: Retention
    package let wake: WakeSignal

    package init(retention: Retention, wake: WakeSignal) {
        self.retention = retention
        self.wake = wake
    }
    package static let interval: Duration = .seconds(30)

    package func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await retention.pass()
                await wake.wait(until: .now + Self.interval)
            }
        }
    }
}
