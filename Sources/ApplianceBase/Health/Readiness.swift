import Dispatch

/// The daemon is ready once its control socket is bound and the first video frame has passed the camera selector:
/// then it answers commands and the picture flows. Tests await it; systemd's READY=1 will be sent on it.
public final class Readiness: Sendable {
    private struct Marks {
        var socketBound = false
        var firstFrame = false
    }

    private let marks = Locked(Marks())
    private let ready = OneShot<Bool>()
    private let onReady: @Sendable () -> Void

    /// `onReady` runs once readiness is complete, on a dispatch queue: the mark that completes it may come from a
    /// streaming thread (the first frame), which must not wait for a log line to be written.
    package init(onReady: @escaping @Sendable () -> Void) {
        self.onReady = onReady
    }

    package func markSocketBound() { mark { $0.socketBound = true } }
    package func markFirstFrame() { mark { $0.firstFrame = true } }

    public var isReady: Bool { ready.isFired }

    /// Waits until ready; false if `timeout` passes first.
    public func wait(timeout: Duration) async -> Bool {
        await ready.wait(timeout: timeout) ?? false
    }

    private func mark(_ change: (inout Marks) -> Void) {
        let complete = marks.withLock { m -> Bool in
            let before = m.socketBound && m.firstFrame
            change(&m)
            return !before && m.socketBound && m.firstFrame
        }
        guard complete else { return }
        ready.fire(true)
        DispatchQueue.global().async(execute: onReady)
    }
}
