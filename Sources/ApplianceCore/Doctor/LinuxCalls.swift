import Foundation

/// The two system calls doctor needs that Swift's Glibc module does not export (sys/vfs.h and sys/timex.h are not
/// in its module map), looked up with dlsym so the C shim stays free of them. Both are read-only queries.
enum LinuxCalls {
    private typealias StatFS = @convention(c) (UnsafePointer<CChar>, UnsafeMutableRawPointer) -> Int32
    private typealias AdjTimex = @convention(c) (UnsafeMutableRawPointer) -> Int32

    /// Bigger than `struct statfs` and `struct timex` on every Linux ABI (120 and 208 bytes on x86_64).
    private static let bufferSize = 512

    /// statfs(2) f_type, the filesystem's magic number (0xEF53 ext2/3/4, 0x4d44 vfat, …); nil when it fails.
    /// f_type is the first field of struct statfs and a C long (`__fsword_t`) on the ABIs the appliance runs on.
    static func fileSystemMagic(_ path: String) -> UInt64? {
        guard let symbol = dlsym(nil, "statfs") else { return nil }
        let call = unsafeBitCast(symbol, to: StatFS.self)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: bufferSize, alignment: 16)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: bufferSize)
        guard call(path, buffer) == 0 else { return nil }
        return UInt64(UInt(bitPattern: buffer.load(as: CLong.self)))
    }

    /// The kernel's clock state from adjtimex(2) with `modes` = 0 (a query, no privilege needed): TIME_OK (0) …
    /// TIME_ERROR (5). TIME_ERROR is what the kernel answers while STA_UNSYNC is set: no time service has
    /// disciplined the clock (or it lost sync). Only the return value is used, so no field offsets are assumed.
    static func clockState() -> Int32? {
        guard let symbol = dlsym(nil, "adjtimex") else { return nil }
        let call = unsafeBitCast(symbol, to: AdjTimex.self)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: bufferSize, alignment: 16)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: bufferSize)
        let state = call(buffer)
        return state < 0 ? nil : state
    }

    static let timeError: Int32 = 5
}
