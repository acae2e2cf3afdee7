import Logging
import NIOPosix
import ObjectDetection

/// A thread of its own for a detector's work on frames (motion's pixel loops, OpenCV's runs), below capture and
/// encoding in priority. The work never holds a thread of Swift's cooperative pool, which the control socket, the web
/// and the recording all share: two channels' motion on a 2-core board once took both of those threads and left the
/// socket unanswered (the lab, session 71).
package final class AnalysisThread: Sendable {
    private let pool = NIOThreadPool(numberOfThreads: 1)
    private let name: String

    /// `name` is what the log calls the detector when its priority cannot be lowered.
    package init(name: String) { self.name = name }

    /// Starts the thread and lowers its priority, runs `body` (the service's loop), and stops the thread after it.
    package func running(logger: Logger, _ body: () async -> Void) async {
        pool.start()
        defer { pool.shutdownGracefully { _ in } }
        let lowered = (try? await pool.runIfActive { DetectorThread.prepare() }) ?? false
        if !lowered { logger.warning("\(name): the detector's thread runs at the daemon's priority") }
        await body()
    }

    /// Runs `work` on the thread; nil once the thread has stopped.
    package func perform<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T? {
        try? await pool.runIfActive(work)
    }
}
