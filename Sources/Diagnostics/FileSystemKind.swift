/// What a filesystem type means for recordings, from statfs's f_type (and the type name in mountinfo, which tells
/// ext2 from ext4: they share one magic number).
struct FileSystemKind: Equatable, Sendable {
    var name: String
    var status: DoctorCheck.Status
    /// Why it is not a pass, and what to do.
    var concern: String?
    var fix: String?

    static let ext = UInt64(0xEF53), xfs = UInt64(0x5846_5342), btrfs = UInt64(0x9123_683E), f2fs = UInt64(0xF2F5_2010)
    static let vfat = UInt64(0x4D44), exfat = UInt64(0x2011_BAB0), tmpfs = UInt64(0x0102_1994),
        ramfs = UInt64(0x8584_58F6)
    static let ntfs = UInt64(0x5346_544E), fuse = UInt64(0x6573_5546), nfs = UInt64(0x6969)
    static let cifs = UInt64(0xFF53_4D42), smb2 = UInt64(0xFE53_4D42), overlay = UInt64(0x794C_7630),
        zfs = UInt64(0x2FC1_2FC1)

    static let journalFix =
        "use ext4 or f2fs for the recordings (mkfs.ext4 on the card, then mount it on the data folder)"

    /// `magic` from statfs; `mountType` from /proc/self/mountinfo when known ("ext4", "vfat", "fuseblk", …).
    init(magic: UInt64?, mountType: String?) {
        let type = mountType ?? ""
        func kind(_ name: String, _ status: DoctorCheck.Status = .pass, _ concern: String? = nil, _ fix: String? = nil)
            -> FileSystemKind
        {
            FileSystemKind(name: name, status: status, concern: concern, fix: fix)
        }
        let noJournal = "no journal: a power cut can corrupt the filesystem"
        switch magic {
        case Self.ext?:
            self = type == "ext2" ? kind("ext2", .warn, noJournal, Self.journalFix) : kind(type.isEmpty ? "ext4" : type)
        case Self.xfs?: self = kind("xfs")
        case Self.btrfs?: self = kind("btrfs")
        case Self.f2fs?: self = kind("f2fs")
        case Self.zfs?: self = kind("zfs")
        case Self.vfat?: self = kind("vfat", .warn, noJournal, Self.journalFix)
        case Self.exfat?: self = kind("exfat", .warn, noJournal, Self.journalFix)
        case Self.tmpfs?, Self.ramfs?:
            self = kind(
                magic == Self.tmpfs ? "tmpfs" : "ramfs", .warn, "in memory: recordings are lost at reboot",
                "mount real storage on the data folder, or set data_dir to a folder on it")
        case Self.ntfs?:
            self = kind("ntfs", .warn, "NTFS on Linux is slow and has no reliable repair tool", Self.journalFix)
        case Self.fuse?:
            self = kind(
                type.isEmpty ? "fuse" : type, .warn,
                "a FUSE filesystem (exfat-fuse or ntfs-3g?): slow, and no journal for exFAT", Self.journalFix)
        case Self.nfs?, Self.cifs?, Self.smb2?:
            self = kind(
                type.isEmpty ? "network" : type, .warn,
                "a network filesystem: recording stops when the network does",
                "record to local storage and let [backup] copy the clips to the server")
        case Self.overlay?: self = kind("overlay")
        case let other?:
            self = kind(
                type.isEmpty ? "type 0x\(String(other, radix: 16))" : type, .warn,
                "an unusual filesystem for recordings", Self.journalFix)
        case nil:
            self = kind(type.isEmpty ? "unknown" : type, .warn, "statfs failed: the type is unknown", Self.journalFix)
        }
    }

    init(name: String, status: DoctorCheck.Status, concern: String?, fix: String?) {
        (self.name, self.status, self.concern, self.fix) = (name, status, concern, fix)
    }
}
