import CSystemCalls

/// What Swift's Glibc module does not export, over CSystemCalls.
public enum LinuxQueries {
    /// statfs(2) f_type, the filesystem's magic number (0xEF53 ext2/3/4, 0x4d44 vfat, …).
    public static func fileSystemMagic(_ path: String) throws(SystemCallError) -> UInt64 {
        var type: UInt = 0
        try SystemCall.run("statfs \(path)") { appl_statfs_type(path, &type) }
        return UInt64(type)
    }

    /// The kernel's clock state from adjtimex(2) as a query: TIME_OK (0) … TIME_ERROR (5).
    public static func clockState() throws(SystemCallError) -> Int32 {
        try SystemCall.run("adjtimex") { appl_clock_state() }
    }

    /// Bytes the process holds from malloc now, over all arenas and mmapped blocks (glibc's mallinfo2): what a leak
    /// grows, without the pages freed memory leaves in RSS.
    public static var heapInUse: UInt64 { UInt64(appl_heap_in_use()) }

    /// Caps glibc's malloc arenas at two (see system_calls.c for the measurements behind it).
    public static func tuneMalloc() { appl_tune_malloc() }
}
