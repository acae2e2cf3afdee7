import AsyncAlgorithms
import Logging
import ServiceLifecycle

/// The recorder's clock, and its part in shutdown: ticks a few times a second (file sync cadence, max duration)
/// until graceful shutdown, then finalises the recording in flight. Its place in the service group puts that after
/// the front ends have stopped taking commands and before uploads stop.
///
/// With `[recording] autostart`, it starts the recording as soon as it runs (the graph is playing by then): on
/// every start of the daemon, so also after a restart or a crash (whose partial file recovery has already adopted).
package struct RecorderService: Service, CustomStringConvertible {
    package var description: String { "RecorderService" }
    package let recorder: Recorder
    package let autostart: Bool
    package let logger: Logger

    package init(recorder: Recorder, autostart: Bool, logger: Logger) {
        self.recorder = recorder
        self.autostart = autostart
        self.logger = logger
    }
    package static let tick: Duration = .milliseconds(250)

    package func run() async throws {
        if autostart {
            do {
                let started = try await recorder.start(title: nil)
                logger.info("autostart: recording \(started.id)")
            } catch {
                logger.error("autostart: cannot start recording: \(error)")
            }
        }
        for await _ in AsyncTimerSequence(interval: Self.tick, clock: .continuous).cancelOnGracefulShutdown() {
            await recorder.tick()
        }
        await recorder.shutdown()
    }
}
