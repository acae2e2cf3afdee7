import Foundation
import ServiceLifecycle

/// Runs retention when a file is finished (`wake`) and on a timer, until shutdown.
struct RetentionService: Service, CustomStringConvertible {
    var description: String { "RetentionService" }
    let retention: Retention
    let wake: WakeSignal
    static let interval: Duration = .seconds(30)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await retention.pass()
                await wake.wait(until: .now + Self.interval)
            }
        }
    }
}
