import Foundation
import SystemCalls

/// One daemon per data folder: an exclusive `flock` on `<data_dir>/appliance.lock`, taken before start-up recovery
/// touches anything and held for the life of the process. The kernel drops it when the process ends, however it
/// ends (SIGKILL, power loss), so a crash never leaves a stale lock behind. The file holds the holder's PID, so a
/// second daemon can say who is in the way.
public final class DataFolderLock: Sendable {
    public struct Refusal: Error, CustomStringConvertible {
        public var description: String
    }

    public let path: String
    /// The open lock file; -1 once released.
    private let descriptor: Locked<Int32>

    /// Takes the lock or throws a one-line reason naming the PID that holds it.
    public init(dataDir: String) throws {
        let path = dataDir + "/appliance.lock"
        self.path = path
        let descriptor: Int32
        do {
            descriptor = try SystemCall.run("open") { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644) }
        } catch {
            throw Refusal(description: "cannot open \(path): \(error.reason)")
        }
        do {
            try SystemCall.run("flock") { flock(descriptor, LOCK_EX | LOCK_NB) }
        } catch {
            let holder = Self.holder(descriptor)
            close(descriptor)
            guard error.code == EWOULDBLOCK else {
                throw Refusal(description: "cannot lock \(path): \(error.reason)")
            }
            throw Refusal(
                description:
                    """
                    data folder \(dataDir) is in use by another appliance daemon (pid \
                    \(holder.map(String.init) ?? "unknown")); stop it first or give this one another data_dir
                    """
            )
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = pwrite(descriptor, pid, pid.count, 0)
        self.descriptor = Locked(descriptor)
    }

    deinit { release() }

    /// Lets another daemon have the folder (the end of `run`; closing the file drops the lock).
    public func release() {
        descriptor.withLock { fd in
            if fd >= 0 { close(fd) }
            fd = -1
        }
    }

    /// The PID written by the process that holds the lock.
    private static func holder(_ descriptor: Int32) -> Int32? {
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = pread(descriptor, &bytes, bytes.count, 0)
        guard count > 0 else { return nil }
        return Int32(String(decoding: bytes[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
