import ApplianceBase
import ApplianceProtocol
import Logging
import ServiceLifecycle

/// `[speaker] feedback = true`: the device's own chimes for what a person near it should hear: a recording started
/// or stopped, a clip protected, storage nearly full or full, an error. It follows the event stream and sends
/// `play` through the one entry point, like any front end.
package final class SpeakerFeedback: Service, Sendable {
    private let events: EventHub
    private let logger: Logger
    private let perform: @Sendable (Command) async throws(ApplianceError) -> CommandResult

    package init(
        events: EventHub, logger: Logger,
        perform: @escaping @Sendable (Command) async throws(ApplianceError) -> CommandResult
    ) {
        (self.events, self.logger, self.perform) = (events, logger, perform)
    }

    /// The chime an event calls for (nil: none). A segment cut of loop recording is not a stop.
    package static func chime(for event: ApplianceEvent) -> SpeakerChime? {
        switch event {
        case .recordingStarted: .recordingStarted
        case .recordingStopped: .recordingStopped
        case .locked: .protected
        case .retentionWarning, .storageFull, .storageMissing: .storageLow
        case .error, .encoderFailed, .cameraFailed: .error
        default: nil
        }
    }

    package func run() async throws {
        let subscription = events.subscribe()
        defer { events.unsubscribe(subscription.id) }
        for await record in subscription.events.cancelOnGracefulShutdown() {
            guard let chime = Self.chime(for: record.event) else { continue }
            do {
                _ = try await perform(.play(PlayRequest(chime: chime)))
            } catch {
                logger.debug("feedback chime \(chime.rawValue) not played: \(error.message)")
            }
        }
    }
}
