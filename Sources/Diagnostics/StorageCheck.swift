import ApplianceBase
import Foundation
import Settings
import SystemCalls

/// Check 5: room to record on the data folder's filesystem, and whether that filesystem suits recordings
/// (journal, survives a reboot, local). Judges the nearest existing folder when data_dir is not there yet.
enum StorageCheck {
    static let name = "storage"

    static func run(_ config: ApplianceConfig) -> DoctorCheck {
        let dataDir = DataFolderCheck.resolve(config.dataDir)
        let path = DataFolderCheck.nearestExisting(dataDir)
        guard let free = FileSystemSpace.available(at: path) else {
            return .fail(
                name, "cannot read the free space of \(path): \(SystemCall.lastError)", fix: "check the storage (dmesg)"
            )
        }
        let real = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let mount = MountTable.current().mount(containing: real)
        let kind = FileSystemKind(magic: try? LinuxQueries.fileSystemMagic(path), mountType: mount?.type)
        let space = SpaceVerdict.judge(
            freeBytes: free, clipBytes: path == dataDir ? clipBytes(in: dataDir + "/recordings") : 0,
            totalBytes: FileSystemSpace.total(at: path), minFreeMb: config.storage.minFreeMb,
            bitrateKbps: config.video.bitrateKbps + (config.audio.source == "none" ? 0 : config.audio.bitrateKbps))
        let place =
            "\(kind.name) on \(mount?.mountPoint ?? "?")"
            + (mount.map { $0.source.hasPrefix("/") ? " (\($0.source))" : "" } ?? "")
        var detail = "\(place): \(space.detail)"
        if let concern = kind.concern { detail += "; \(concern)" }
        let status = max(kind.status, space.status)
        let fix = [space.fix, kind.fix].compactMap { $0 }.joined(separator: "; ")
        return DoctorCheck(name: name, status: status, detail: detail, fix: fix)
    }

    /// Bytes of the clips under recordings/ (what retention may delete to make room).
    static func clipBytes(in folder: String) -> Int64 {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return 0 }
        var total: Int64 = 0
        while let item = walker.nextObject() as? String {
            if item.hasSuffix(".mp4"), let size = DataDirectory.fileSize(folder + "/" + item) { total += size }
        }
        return total
    }
}
