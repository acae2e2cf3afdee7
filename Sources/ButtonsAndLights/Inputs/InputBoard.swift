import ApplianceBase
import ApplianceProtocol
import Settings

/// Every `[[input]]`'s latest status, for `status.inputs`. Written by `InputService`, read by `StatusReporter`.
package final class InputBoard: Sendable {
    private let board: Locked<[InputStatus]>

    /// Each input starts as missing ("not looked for yet") until its reader has tried it.
    package init(inputs: [ApplianceConfig.Input], device: (ApplianceConfig.Input) -> String) {
        board = Locked(
            inputs.map {
                InputStatus(
                    label: $0.label, kind: $0.kind.rawValue, device: device($0), state: .missing,
                    detail: "not looked for yet")
            })
    }

    package var statuses: [InputStatus] { board.withLock { $0 } }

    /// Stores `status` at `index`; returns the one it replaces.
    @discardableResult
    package func set(_ index: Int, _ status: InputStatus) -> InputStatus? {
        board.withLock { board in
            guard board.indices.contains(index) else { return nil }
            defer { board[index] = status }
            return board[index]
        }
    }
}
