#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A FIFO held open for reading, never read from. Opening a FIFO blocks until the other end is there; a camera's
/// filesrc that opens one before its writer comes is stuck in open(), and when its start is given up on, closing
/// it sends the first writer `Broken pipe`. A hold opened without blocking (O_NONBLOCK) fixes both: a writer's
/// open returns at once (it has a reader), what it writes waits in the pipe until the camera starts (the pipe's
/// 64 KiB, then its write waits), and a camera that stops or never started leaves it waiting, not broken.
/// `hasWriter` says when to start the camera: its open of the FIFO then returns at once.
public final class FifoHold: Sendable {
    public let path: String
    private let descriptor: Int32

    /// Nil when `path` is not a FIFO (a plain file, nothing there yet) or cannot be opened.
    public init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFIFO else { return nil }
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Whether a writer has the FIFO open and has written what nobody has read yet. Data left behind by a writer
    /// that has gone does not count (poll says POLLIN with POLLHUP then): opening the FIFO would still block.
    public var hasWriter: Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, 0) > 0 else { return false }
        return entry.revents & Int16(POLLIN) != 0 && entry.revents & Int16(POLLHUP) == 0
    }
}
