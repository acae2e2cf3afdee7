import AsyncAlgorithms
import Logging
import ServiceLifecycle

/// The recorder's clock, and its part in shutdown: ticks a few times a second (file sync cadence, max duration)
/// until graceful shutdown, then finalises the recording in flight. Its place in the service group puts that after
/// the front ends have stopped taking commands and before uploads stop.
///
/// With `[recording] autostart`, it starts the recording as soon as it runs (the graph is playing by then): on
/// every start of the daemon, so also after a restart or a crash (whose partial file recovery has already adopted).
struct RecorderService: Service, CustomStringConvertible {
    var description: String { "RecorderService" }
    let recorder: Recorder
    let autostart: Bool
    let logger: Logger
    static let tick: Duration = .milliseconds(250)

    func run() async throws {
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
