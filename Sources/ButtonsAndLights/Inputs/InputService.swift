import ApplianceBase
import ApplianceProtocol
import Logging
import ServiceLifecycle
import Settings

/// The `[[input]]` shutters: one `InputReader` thread per input, whose gestures become commands sent through the
/// one entry point (`perform`), as the socket's and the web page's are. Publishes `input_gesture` (with the
/// command's error when it failed: a `stop` while idle is the user's business, not a fault), `input_connected` and
/// `input_missing`, and keeps the board `status.inputs` shows. An input that cannot be opened is a status line and
/// an event, looked for again every second; nothing here stops the daemon.
package final class InputService: Service, Sendable, CustomStringConvertible {
    package var description: String { "InputService" }

    private let inputs: [ApplianceConfig.Input]
    private let board: InputBoard
    private let events: EventHub
    private let logger: Logger
    private let perform: @Sendable (Command) async throws(ApplianceError) -> CommandResult

    package init(
        inputs: [ApplianceConfig.Input], board: InputBoard, events: EventHub, logger: Logger,
        perform: @escaping @Sendable (Command) async throws(ApplianceError) -> CommandResult
    ) {
        (self.inputs, self.board, self.events, self.logger, self.perform) = (inputs, board, events, logger, perform)
    }

    /// The device an input reads.
    package static func device(for input: ApplianceConfig.Input) -> any ButtonDevice {
        switch input.kind {
        case .evdev: EvdevButton(config: input)
        case .gpio: GpioButton(config: input)
        }
    }

    package func run() async throws {
        let (stream, continuation) = AsyncStream.makeStream(of: (Int, InputReader.Report).self)
        var readers: [InputReader] = []
        for (index, input) in inputs.enumerated() {
            do {
                readers.append(
                    try InputReader(
                        index: index, label: input.label, kind: input.kind.rawValue,
                        device: Self.device(for: input), rules: input.gestureRules, logger: logger,
                        report: { continuation.yield(($0, $1)) }))
            } catch {
                logger.error("\(error)")
            }
        }
        for reader in readers { reader.start() }
        var reported: [Int: InputStatus.State] = [:]
        for await (index, report) in stream.cancelOnGracefulShutdown() {
            switch report {
            case .status(let status): statusChanged(index, status, reported: &reported)
            case .gesture(let gesture): await recognised(gesture, on: inputs[index])
            }
        }
        for reader in readers { await reader.stop() }
        continuation.finish()
    }

    /// Updates the board; an event and a log line when the state changes (or a connected input's grab or note
    /// does), not when only the reason a device is missing changes.
    private func statusChanged(_ index: Int, _ status: InputStatus, reported: inout [Int: InputStatus.State]) {
        board.set(index, status)
        guard reported[index] != status.state || status.state == .connected else { return }
        reported[index] = status.state
        let detail = status.detail.map { ": \($0)" } ?? ""
        switch status.state {
        case .connected:
            logger.info(
                """
                input '\(status.label)': \(status.device) \
                connected\(status.grabbed == true ? " (grabbed)" : "")\(detail)
                """
            )
            events.publish(.inputConnected(status))
        case .missing, .failed:
            logger.warning("input '\(status.label)': \(status.device) \(status.state.rawValue)\(detail)")
            events.publish(.inputMissing(status))
        }
    }

    private func recognised(_ gesture: InputGesture.Gesture, on input: ApplianceConfig.Input) async {
        let (action, command) = input.command(for: gesture)
        var failure: String?
        do {
            _ = try await perform(command)
        } catch {
            failure = error.message
        }
        logger.info(
            "input '\(input.label)': \(gesture.rawValue) → \(command.name)\(failure.map { " refused: \($0)" } ?? "")")
        events.publish(
            .inputGesture(
                InputGesture(
                    label: input.label, gesture: gesture, action: action.rawValue,
                    command: command.name, error: failure)))
    }
}
