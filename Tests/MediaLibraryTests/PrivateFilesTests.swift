import ApplianceBase
import Foundation
import GRDB
import XCTest

@testable import MediaLibrary

/// At rest: the data folder is its owner's alone (0700) and the database 0600, whatever the umask the daemon was
/// started with (`make run` runs under the login's 0022, which made both readable by every local user).
final class PrivateFilesTests: XCTestCase {
    private var folder = ""
    private var umaskBefore: mode_t = 0

    override func setUpWithError() throws {
        folder =
            FileManager.default.temporaryDirectory.appendingPathComponent("private-\(UUID().uuidString.prefix(8))").path
        umaskBefore = umask(0o022)  // the usual login umask: new files 0644, folders 0755
    }

    override func tearDownWithError() throws {
        umask(umaskBefore)
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func mode(_ path: String) -> mode_t {
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0, path)
        return info.st_mode & 0o777
    }

    func testTheDataFolderIsTheOwnersAloneWhateverTheUmask() throws {
        let data = try DataDirectory(path: folder + "/data")
        XCTAssertEqual(mode(data.root), 0o700)
        // One an earlier version left open is closed at the next start.
        XCTAssertEqual(chmod(data.root, 0o755), 0)
        _ = try DataDirectory(path: folder + "/data")
        XCTAssertEqual(mode(data.root), 0o700)
    }

    func testTheDatabaseAndItsWALAreTheOwnersAlone() async throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/appliance.sqlite"
        do {
            let library = try Library(path: path)
            _ = try await library.insertUser(
                name: "anna", role: .admin, passwordHash: "$2b$10$x", digestHA1: "0", at: Date())
            for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
                XCTAssertEqual(mode(file), 0o600, file)
            }
        }
        // A database an earlier version left readable (and its WAL) is made private when it is opened.
        for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            chmod(file, 0o644)
        }
        _ = try Library(path: path)
        for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            XCTAssertEqual(mode(file), 0o600, file)
        }
    }
}
