import Foundation

/// A TCP port on 127.0.0.1 that nothing listens on: the kernel's choice for a socket bound to port 0, closed again
/// at once. A random pick in 20000–40000 (as the test servers used) can fall on a port the system's ephemeral
/// range has in use; CI-like runs saw the WebDAV server fail to bind twice in one run.
enum FreePort {
    static func pick() -> Int {
        guard let (fd, port) = bindLoopback() else { return Int.random(in: 20_000...30_000) }
        close(fd)
        return port
    }

    /// A TCP socket bound to 127.0.0.1 on a port the kernel chose, and that port; nil when it cannot be had.
    static func bindLoopback() -> (fd: Int32, port: Int)? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard bound == 0, named == 0 else {
            close(fd)
            return nil
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
