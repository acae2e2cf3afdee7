import CSystemCalls

/// The two system calls doctor needs that Swift's Glibc module does not export (sys/vfs.h and sys/timex.h are not
/// in its module map); thin wrappers in the C shim call them. Both are read-only queries.
enum LinuxCalls {
    /// statfs(2) f_type, the filesystem's magic number (0xEF53 ext2/3/4, 0x4d44 vfat, …); nil when it fails.
    static func fileSystemMagic(_ path: String) -> UInt64? {
        var type: UInt = 0
        guard appl_statfs_type(path, &type) == 0 else { return nil }
        return UInt64(type)
    }

    /// The kernel's clock state from adjtimex(2) with `modes` = 0 (a query, no privilege needed): TIME_OK (0) …
    /// TIME_ERROR (5). TIME_ERROR is what the kernel answers while STA_UNSYNC is set: no time service has
    /// disciplined the clock (or it lost sync).
    static func clockState() -> Int32? {
        let state = appl_clock_state()
        return state < 0 ? nil : state
    }

    static let timeError: Int32 = 5
}
