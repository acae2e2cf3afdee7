import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A camera fed from a FIFO: the daemon's `filesrc` reads raw 320x240 I420 frames that the test writes at 10 fps,
/// and blocks in read() when the test stops writing — a camera whose driver hangs, with no EOS and no error.
final class FifoCamera: @unchecked Sendable {
    /// The `[video]` table that matches the frames (no scaling work for the daemon).
    static let video = "[video]\nwidth = 320\nheight = 240\nframerate = 10"
    static let frameBytes = 320 * 240 * 3 / 2

    let name: String
    let path: String
    private let directory: URL
    /// O_RDWR: opening does not wait for the daemon's end, and the FIFO never reports end of file while it is open.
    /// -1: none (`withWriter: false`, or after `hangUp`): the daemon's open() of the FIFO then waits for one.
    private var writer: Int32
    private let lock = NSLock()
    private var feeding = false
    /// The feeder thread is in its loop (it leaves it after its current frame once `feeding` is false).
    private var feederRunning = false
    private var lastWrite: Date?

    /// `withWriter: false`: nobody ever writes to it, and opening it for reading blocks for good.
    init(name: String = "fifo", withWriter: Bool = true) throws {
        self.name = name
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "appliance-fifo-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("camera.fifo").path
        guard mkfifo(path, 0o600) == 0 else { throw DaemonError(message: "mkfifo \(path): errno \(errno)") }
        writer = -1
        guard withWriter else { return }
        writer = open(path, O_RDWR)
        guard writer >= 0 else { throw DaemonError(message: "open \(path): errno \(errno)") }
    }

    deinit {
        stopFeeding()
        if writer >= 0 { close(writer) }
        try? FileManager.default.removeItem(at: directory)
    }

    /// The `[[camera]]` table for the daemon's config.
    var config: String {
        """
        [[camera]]
        name = "\(name)"
        source = "pipeline"
        pipeline = "filesrc location=\(path) blocksize=\(Self.frameBytes) ! rawvideoparse width=320 height=240 \
        format=i420 framerate=10/1"
        """
    }

    /// When the last frame was written.
    var lastFrame: Date? { lock.withLock { lastWrite } }

    /// How many frames were written, in every feed so far.
    var framesWritten: Int { lock.withLock { written } }
    private var written = 0

    /// Writes frames of one gray level at 10 fps from a thread of its own (a frame is larger than the pipe's buffer:
    /// a write waits for the reader) until `stopFeeding`.
    func startFeeding(value: UInt8 = 128) {
        let frame = [UInt8](repeating: value, count: Self.frameBytes)
        startFeeding { _ in frame }
    }

    /// Writes `scene`'s frames at 10 fps, in real time (frame n at n / 10 s after the first), until `stopFeeding`;
    /// with `count`, frames `first` ..< `first + count` and then it stops by itself. `ahead`: the first `ahead`
    /// frames go at once, as fast as the daemon reads them, as a capture process pacing itself by its own start
    /// time (ffmpeg `-re`) catches up after it was kept waiting.
    func startFeeding(_ scene: FifoScene, first: Int = 0, count: Int? = nil, ahead: Int = 0) {
        startFeeding(count: count, ahead: ahead) { scene.frame(first + $0) }
    }

    /// Comes as a capture process started after the daemon would: opens the FIFO for writing only. Without
    /// waiting: if nothing holds the FIFO open for reading this throws (a real writer would wait in open()).
    func openWriter() throws {
        let opened = open(path, O_WRONLY | O_NONBLOCK)
        guard opened >= 0 else {
            throw DaemonError(message: "open \(path) for writing: errno \(errno) (no reader holds it)")
        }
        _ = fcntl(opened, F_SETFL, fcntl(opened, F_GETFL) & ~O_NONBLOCK)  // its writes wait for the reader
        writer = opened
    }

    /// Whether the feeder is still writing (a feed with a count ends by itself).
    var isFeeding: Bool { lock.withLock { feederRunning } }

    /// Whether a write failed (the pipe broke: its reader closed it while nothing else held it).
    var writeFailed: Bool { lock.withLock { failedWrite } }
    private var failedWrite = false

    private func startFeeding(count: Int? = nil, ahead: Int = 0, frames: @escaping @Sendable (Int) -> [UInt8]) {
        lock.withLock { (feeding, feederRunning) = (true, true) }
        let writer = self.writer
        Thread { [self] in
            defer { lock.withLock { feederRunning = false } }
            var n = 0
            var next = Date()
            while lock.withLock({ feeding }), n < count ?? .max {
                let frame = frames(n)
                guard frame.withUnsafeBytes({ write(writer, $0.baseAddress, $0.count) }) == frame.count else {
                    lock.withLock { failedWrite = true }
                    return
                }
                n += 1
                lock.withLock { (lastWrite, written) = (Date(), written + 1) }
                // The next frame 0.1 s after this one was due, or after it was written if that was later (the first
                // write waits for the daemon to read): a camera's pace, never a burst to catch up. Within `ahead` the
                // next one goes at once, and the pace counts from the burst's end.
                next = n < ahead ? Date() : max(next.addingTimeInterval(0.1), Date())
                if n < ahead { continue }
                Thread.sleep(until: next)  // the subject: a real camera's pace, 10 frames a second
            }
        }.start()
    }

    /// Stops writing and closes the FIFO's only writer: the daemon reads the end of its stream (the camera's stream
    /// ended), and opening the FIFO again blocks until a writer comes.
    func hangUp() {
        stopFeeding()
        if writer >= 0 { close(writer) }
        writer = -1
    }

    /// Stops writing; the daemon's read then waits for good.
    func stopFeeding() {
        let was = lock.withLock { () -> Bool in
            defer { feeding = false }
            return feeding
        }
        if was { Poll.until(timeout: 2) { lock.withLock { !feederRunning } } }  // the feeder's current frame is written
    }
}
