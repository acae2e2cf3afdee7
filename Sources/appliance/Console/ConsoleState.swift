import Foundation
import Synchronization
import SystemCalls

/// What the console's threads share: the model and the flags the main loop acts on, behind one mutex. The event
/// follower, the command sender and the signal handlers change it and then `wake` the main loop, which draws.
final class ConsoleState: Sendable {
    struct Shared: Sendable {
        var model: ConsoleModel
        /// The terminal changed size: clear the whole screen before the next draw.
        var resized = false
        /// A signal (SIGTERM, SIGHUP, SIGINT from outside) asked the console to end.
        var quit = false
        /// A `status` is queued on the command connection and not yet sent (refreshes are coalesced).
        var statusQueued = false
    }

    private let mutex: Mutex<Shared>
    let wake: Wakeup

    init(_ model: ConsoleModel) throws {
        mutex = Mutex(Shared(model: model))
        wake = try Wakeup()
    }

    /// Changes the shared state under the lock (keep the body short: no I/O), then wakes the main loop.
    @discardableResult
    func update<R>(_ body: (inout Shared) -> R) -> R {
        let result = mutex.withLock { body(&$0) }
        wake.signal()
        return result
    }

    /// Reads the shared state under the lock without waking anyone.
    func read<R>(_ body: (inout Shared) -> R) -> R {
        mutex.withLock { body(&$0) }
    }
}

/// A self-pipe: other threads write a byte to wake the main loop's `poll` (a write of one byte is async-signal-safe
/// and never blocks here: the pipe is non-blocking and a full pipe already means "wake up").
final class Wakeup: Sendable {
    let readFD: Int32
    let writeFD: Int32

    init() throws {
        var fds: [Int32] = [0, 0]
        do {
            try SystemCall.run("pipe") { pipe(&fds) }
        } catch {
            throw ConsoleError("cannot create a pipe: \(error.reason)")
        }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        (readFD, writeFD) = (fds[0], fds[1])
    }

    deinit {
        close(readFD)
        close(writeFD)
    }

    func signal() {
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)
    }

    /// Empties the pipe (after `poll` said it is readable).
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readFD, &buffer, buffer.count) > 0 {}
    }
}
