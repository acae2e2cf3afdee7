import Foundation
import SystemCalls

/// Check 4b: the data folder exists (or can be created) and is writable, proven by creating and removing a probe
/// file — the only thing doctor ever writes there. It takes no lock, so it runs beside a live daemon.
enum DataFolderCheck {
    static let name = "data-folder"

    /// data_dir resolved as `DataDirectory` resolves it (relative to the working directory).
    static func resolve(_ path: String) -> String {
        URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
            .standardized.path
    }

    /// The folder itself when it exists, else its nearest existing parent (what the filesystem checks look at).
    static func nearestExisting(_ path: String) -> String {
        var current = URL(fileURLWithPath: path).standardized
        while !FileManager.default.fileExists(atPath: current.path), current.path != "/" {
            current.deleteLastPathComponent()
        }
        return current.path
    }

    static func run(dataDir: String) -> DoctorCheck {
        let path = resolve(dataDir)
        let service = UserAccount.named(UserAccount.serviceUserName)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            let parent = nearestExisting(path)
            guard let node = DeviceNode.at(parent) else {
                return .fail(name, "\(path) does not exist and \(parent) cannot be read", fix: "create \(path)")
            }
            let whoCanWrite =
                service.map { node.writableFolder(uid: $0.uid, groups: $0.groups) }
                ?? (access(parent, W_OK | X_OK) == 0)
            let who = service?.name ?? UserAccount.current().name
            guard whoCanWrite else {
                return .fail(
                    name, "\(path) does not exist and \(who) cannot create it in \(parent) (\(node.ownership))",
                    fix: "mkdir -p \(path) && chown \(who): \(path)")
            }
            return .pass(
                name, "\(path) does not exist yet; appliance run creates it (\(parent) is writable for \(who))")
        }
        guard isDirectory.boolValue, let node = DeviceNode.at(path) else {
            return .fail(name, "\(path) is not a folder", fix: "set data_dir (or --data-dir) to a folder")
        }
        let probe = path + "/.doctor-probe-\(getpid())"
        let fd: Int32
        do {
            fd = try SystemCall.run("open") { open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        } catch {
            return .fail(
                name, "cannot create a file in \(path): \(error.reason) (\(node.ownership))",
                fix: error.code == EROFS
                    ? "mount the storage read-write"
                    : "chown \(service?.name ?? UserAccount.current().name): \(path), or run doctor as the service user"
            )
        }
        defer {
            close(fd)
            unlink(probe)
        }
        do {
            guard try SystemCall.run("write", { write(fd, "ok", 2) }) == 2 else {
                return .fail(
                    name, "cannot write into \(path): short write", fix: "free space or check the storage (dmesg)")
            }
        } catch {
            return .fail(
                name, "cannot write into \(path): \(error.reason)", fix: "free space or check the storage (dmesg)")
        }
        if let service, !node.writableFolder(uid: service.uid, groups: service.groups) {
            return .fail(
                name,
                """
                \(path) is writable for \(UserAccount.current().name) but not for the service user \(service.name) \
                (\(node.ownership))
                """,
                fix: "chown -R \(service.name): \(path)")
        }
        return .pass(name, "\(path) is writable (owner \(node.ownership))")
    }
}
