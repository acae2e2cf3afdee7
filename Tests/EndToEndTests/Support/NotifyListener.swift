import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
    import ApplianceBase
#endif

/// Plays systemd's side of the notify protocol: an AF_UNIX datagram socket the daemon finds in `$NOTIFY_SOCKET`,
/// read on a thread of its own, each message kept with the time it arrived.
final class NotifyListener: @unchecked Sendable {
    struct Message {
        var time: Date
        var text: String
        /// `KEY=value` lines.
        var fields: [String: String] {
            Dictionary(
                text.split(separator: "\n").compactMap { line -> (String, String)? in
                    guard let eq = line.firstIndex(of: "=") else { return nil }
                    return (String(line[..<eq]), String(line[line.index(after: eq)...]))
                }, uniquingKeysWith: { _, last in last })
        }
    }

    let path: String
    private let fd: Int32
    private let lock = NSLock()
    private var received: [Message] = []
    private var closed = false
    /// The reading thread has returned.
    private var finished = false
    /// Called on the reading thread as each message arrives, before the next one is read.
    var onMessage: (@Sendable (Message) -> Void)?

    init(directory: URL) throws {
        path = directory.appendingPathComponent("notify.sock").path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard fd >= 0, bound == 0 else { throw DaemonError(message: "cannot bind \(path): errno \(errno)") }
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let thread = Thread { [self] in self.read() }
        thread.start()
    }

    deinit { close() }

    func close() {
        lock.lock()
        let wasClosed = closed
        closed = true
        lock.unlock()
        if !wasClosed {
            // The reader notices within its 200 ms receive timeout.
            Poll.until(timeout: 2) { lock.withLock { finished } }
            Glibc.close(fd)
            unlink(path)
        }
    }

    var messages: [Message] {
        lock.lock()
        defer { lock.unlock() }
        return received
    }

    /// Messages that set `key`, with its value.
    func values(_ key: String) -> [(time: Date, value: String)] {
        messages.compactMap { m in m.fields[key].map { (m.time, $0) } }
    }

    /// Waits until a message sets `key` (to `value`, if given); returns its arrival time.
    @discardableResult
    func wait(for key: String, value: String? = nil, timeout: TimeInterval) -> Date? {
        var hit: Date?
        Poll.until(timeout: timeout) {
            hit = values(key).first(where: { value == nil || $0.value == value })?.time
            return hit != nil
        }
        return hit
    }

    private func read() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            lock.lock()
            let stop = closed
            lock.unlock()
            if stop {
                lock.withLock { finished = true }
                return
            }
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { continue }
            let message = Message(time: Date(), text: String(decoding: buffer[0..<count], as: UTF8.self))
            onMessage?(message)
            lock.lock()
            received.append(message)
            lock.unlock()
        }
    }
}
