import Foundation

/// A device node's owner, group and mode, for the permission checks and their advice.
struct DeviceNode: Sendable, Equatable {
    var path: String
    var uid: uid_t
    var gid: gid_t
    /// Permission bits (0o660 …).
    var mode: UInt32

    init(path: String, uid: uid_t, gid: gid_t, mode: UInt32) {
        (self.path, self.uid, self.gid, self.mode) = (path, uid, gid, mode & 0o7777)
    }

    init(path: String, info: stat) {
        self.init(path: path, uid: info.st_uid, gid: info.st_gid, mode: UInt32(info.st_mode))
    }

    static func at(_ path: String) -> DeviceNode? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return DeviceNode(path: path, info: info)
    }

    var owner: String { Self.userName(uid) }
    var group: String { Self.groupName(gid) }
    /// "root:video 0660"
    var ownership: String { "\(owner):\(group) \(String(format: "%04o", mode))" }

    /// Whether a user with this uid and these groups may read and write the node (root may always).
    func readWrite(uid user: uid_t, groups: Set<gid_t>) -> Bool {
        if user == 0 { return true }
        let bits: UInt32 = user == uid ? (mode >> 6) & 7 : groups.contains(gid) ? (mode >> 3) & 7 : mode & 7
        return bits & 6 == 6
    }

    /// Whether a user may create files in this folder (write and search), judged as for `readWrite`.
    func writableFolder(uid user: uid_t, groups: Set<gid_t>) -> Bool {
        if user == 0 { return true }
        let bits: UInt32 = user == uid ? (mode >> 6) & 7 : groups.contains(gid) ? (mode >> 3) & 7 : mode & 7
        return bits & 3 == 3
    }

    static func userName(_ uid: uid_t) -> String {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "\(uid)" }
        return String(cString: name)
    }

    static func groupName(_ gid: gid_t) -> String {
        guard let entry = getgrgid(gid), let name = entry.pointee.gr_name else { return "\(gid)" }
        return String(cString: name)
    }
}

/// A user account and the groups it is in (primary and supplementary), from the user database.
struct UserAccount: Sendable, Equatable {
    var name: String
    var uid: uid_t
    var groups: Set<gid_t>

    /// The user the packaged service runs as (packaging/sysusers/appliance.conf).
    static let serviceUserName = "appliance"

    static func named(_ name: String) -> UserAccount? {
        guard let entry = getpwnam(name) else { return nil }
        let uid = entry.pointee.pw_uid
        let gid = entry.pointee.pw_gid
        var count: Int32 = 64
        var list = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, gid, &list, &count) < 0 {
            list = [gid_t](repeating: 0, count: Int(count))
            _ = getgrouplist(name, gid, &list, &count)
        }
        return UserAccount(name: name, uid: uid, groups: Set(list.prefix(Int(max(0, count)))).union([gid]))
    }

    /// The user doctor runs as, with the groups of this process (which is what access(2) judges).
    static func current() -> UserAccount {
        let count = getgroups(0, nil)
        var list = [gid_t](repeating: 0, count: Int(max(0, count)))
        let got = getgroups(count, &list)
        let uid = geteuid()
        return UserAccount(
            name: DeviceNode.userName(uid), uid: uid, groups: Set(list.prefix(Int(max(0, got)))).union([getegid()]))
    }

    static func groupID(_ name: String) -> gid_t? {
        getgrnam(name).map { $0.pointee.gr_gid }
    }
}
