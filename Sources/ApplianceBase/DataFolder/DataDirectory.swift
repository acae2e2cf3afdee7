import Foundation
import SystemCalls

/// The on-disk layout under data_dir (docs/RECORDING.md, "What happens to a clip") and the durable file operations on
/// it.
public struct DataDirectory: Sendable {
    public let root: String

    public struct StorageError: Error, CustomStringConvertible {
        public var description: String

        package init(description: String) {
            self.description = description
        }
    }

    /// Resolves `path` to an absolute path, creates the folders and proves they are writable. The data folder is made
    /// its owner's alone (0700) whatever the umask: it holds the clips, the accounts' database and the device's key
    /// (docs/SECURITY.md).
    public init(path: String) throws {
        let url = URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        root = url.standardized.path
        for folder in [root, partialDir, recordingsDir, thumbnailsDir, snapshotsDir, activityDir] {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                // Best effort: a FAT card's modes are its mount options', and refusing to record there helps no one.
                if folder == root { _ = chmod(root, 0o700) }
            } catch {
                throw StorageError(description: "data dir \(folder) cannot be created: \(Self.reason(error))")
            }
            let probe = folder + "/.write-test-\(getpid())"
            guard FileManager.default.createFile(atPath: probe, contents: Data("x".utf8)) else {
                throw StorageError(description: "data dir \(folder) is not writable")
            }
            try? FileManager.default.removeItem(atPath: probe)
        }
    }

    public var partialDir: String { root + "/partial" }
    public var recordingsDir: String { root + "/recordings" }
    public var thumbnailsDir: String { root + "/thumbnails" }
    public var snapshotsDir: String { root + "/snapshots" }
    /// Activity pictures (motion's best frame, the picture at a sound or a mark).
    public var activityDir: String { root + "/activity" }
    /// The speaker's chimes, made at each start.
    public var chimesDir: String { root + "/chimes" }

    public func partialPath(id: String) -> String { "\(partialDir)/\(id).mp4" }
    public func thumbnailPath(id: String) -> String { "\(thumbnailsDir)/\(id).jpg" }
    /// A file's scrubbing previews (`ScrubPack`).
    public func scrubPath(id: String) -> String { "\(thumbnailsDir)/\(id).scrub" }
    public func snapshotPath(id: String) -> String { "\(snapshotsDir)/\(id).jpg" }
    /// Named by kind and start (ms since 1970), which the detector and the activity log both know before the row has
    /// a number.
    public func activityPicturePath(kind: String, startedAt: Date) -> String {
        "\(activityDir)/\(kind)-\(Int64((startedAt.timeIntervalSince1970 * 1000).rounded(.down))).jpg"
    }

    /// recordings/YYYY/MM/DD/<id>.mp4 for the local date of `date`.
    public func finalPath(id: String, date: Date) -> String {
        let c = Calendar.current.dateComponents([.year, .month, .day], from: date)
        return String(format: "%@/%04d/%02d/%02d/%@.mp4", recordingsDir, c.year!, c.month!, c.day!, id)
    }

    /// Leftover partial files (from a crash), oldest first.
    public func partialFiles(suffix: String = ".mp4") -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: partialDir)) ?? []
        return names.filter { $0.hasSuffix(suffix) }.map { "\(partialDir)/\($0)" }.sorted()
    }

    /// Moves a finished file into place durably: fsync the file, rename, fsync both folders.
    public func commit(_ source: String, to destination: String) throws {
        let folder = (destination as NSString).deletingLastPathComponent
        // No file, no folders: when the storage went away the path leads to its bare mount point, which must
        // stay empty.
        guard DataDirectory.fileSize(source) != nil else {
            throw StorageError(description: "cannot move \(source): it is not there (is the storage still mounted?)")
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Self.fsync(path: source)
        do {
            try SystemCall.run("rename") { rename(source, destination) }
        } catch {
            throw StorageError(description: "cannot move \(source) to \(destination): \(error.reason)")
        }
        try? Self.fsync(path: folder)
        try? Self.fsync(path: (source as NSString).deletingLastPathComponent)
    }

    /// fdatasync a file by path (the recording's cadence: data reaches the disk, metadata follows at the commit).
    @discardableResult
    public static func dataSync(path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return fdatasync(fd) == 0
    }

    /// Size of a file in bytes, nil when it is not there.
    public static func fileSize(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    /// fsync a file or folder by path.
    public static func fsync(path: String) throws {
        let fd: Int32
        do {
            fd = try SystemCall.run("open") { open(path, O_RDONLY) }
        } catch {
            throw StorageError(description: "cannot open \(path): \(error.reason)")
        }
        defer { close(fd) }
        _ = Foundation.fsync(fd)
    }

    package static func reason(_ error: Error) -> String {
        (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
    }
}
