import AsyncAlgorithms
import ServiceLifecycle

/// The recorder's clock, and its part in shutdown: ticks a few times a second (file sync cadence, max duration)
/// until graceful shutdown, then finalises the recording in flight. Its place in the service group puts that after
/// the front ends have stopped taking commands and before uploads stop.
struct RecorderService: Service, CustomStringConvertible {
    var description: String { "RecorderService" }
    let recorder: Recorder
    static let tick: Duration = .milliseconds(250)

    func run() async throws {
        for await _ in AsyncTimerSequence(interval: Self.tick, clock: .continuous).cancelOnGracefulShutdown() {
            await recorder.tick()
        }
        await recorder.shutdown()
    }
}
