#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Descriptors this process still holds on device nodes that no longer exist: `/proc/self/fd/N` reads
/// "/dev/video0 (deleted)" once the device was unplugged. Such a descriptor keeps the node's number taken, so the
/// device comes back under another name (`/dev/video1`).
public enum VanishedDevices {
    /// The descriptors on vanished nodes whose path starts with `prefix`, with what they pointed at.
    public static func descriptors(prefix: String, fdFolder: String = "/proc/self/fd") -> [(fd: Int32, target: String)]
    {
        guard let folder = opendir(fdFolder) else { return [] }
        defer { closedir(folder) }
        var found: [(Int32, String)] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let fd = Int32(name) else { continue }
            var buffer = [CChar](repeating: 0, count: 4096)
            let count = readlink("\(fdFolder)/\(name)", &buffer, buffer.count - 1)
            guard count > 0 else { continue }
            let target = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if target.hasPrefix(prefix), target.hasSuffix(" (deleted)") { found.append((fd, target)) }
        }
        return found
    }

    /// Points each such descriptor at /dev/null (dup2 replaces it in one step): the vanished node is let go, and
    /// whatever owns the number (GStreamer's v4l2 buffer pool keeps a dup of the camera's descriptor) still holds a
    /// valid descriptor, so its later ioctl fails harmlessly and its close closes /dev/null — never another file
    /// that reused the number. Returns what was let go.
    @discardableResult
    public static func release(prefix: String) -> [String] {
        let stale = descriptors(prefix: prefix)
        guard !stale.isEmpty else { return [] }
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard null >= 0 else { return [] }
        defer { close(null) }
        return stale.compactMap { fd, target in
            guard dup2(null, fd) == fd else { return nil }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            return "\(fd) \(target)"
        }
    }
}
