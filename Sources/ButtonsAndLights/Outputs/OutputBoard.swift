import ApplianceBase
import ApplianceProtocol
import Settings

/// What each `[[output]]` shows, for `status.outputs`: written by the recording light, read by `StatusReporter`.
/// A short lock each time.
package final class OutputBoard: Sendable {
    private let entries: Locked<[OutputStatus]>

    package init(_ outputs: [ApplianceConfig.Output]) {
        entries = Locked(
            outputs.map {
                OutputStatus(
                    label: $0.label, kind: $0.kind.rawValue, role: $0.role.rawValue, device: Lights.device($0),
                    state: .off)
            })
    }

    /// nil when no output is configured (status then leaves `outputs` out).
    package var current: [OutputStatus]? {
        let all = entries.withLock { $0 }
        return all.isEmpty ? nil : all
    }

    package func update(_ status: OutputStatus) {
        entries.withLock { all in
            if let i = all.firstIndex(where: { $0.label == status.label }) { all[i] = status }
        }
    }
}
