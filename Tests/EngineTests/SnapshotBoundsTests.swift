import ApplianceProtocol
import Foundation
import XCTest

@testable import Engine

/// What a viewer's snapshots may write: a few a minute, and only the newest files kept.
final class SnapshotBoundsTests: XCTestCase {
    func testAtMostSoManyAMinute() throws {
        let budget = SnapshotBudget(perMinute: 3)
        let t0 = ContinuousClock.now
        for i in 0..<3 { XCTAssertNoThrow(try budget.admit(now: t0 + .seconds(i))) }
        XCTAssertThrowsError(try budget.admit(now: t0 + .seconds(10))) { error in
            XCTAssertEqual((error as? ApplianceError)?.code, .rateLimited, "429 on the web")
            XCTAssertTrue((error as? ApplianceError)?.message.contains("3 snapshots a minute") == true)
        }
        XCTAssertNoThrow(try budget.admit(now: t0 + .seconds(60)), "a minute after the first, one more")
        XCTAssertThrowsError(try budget.admit(now: t0 + .seconds(60.5)))
    }

    func testOnlyTheNewestFilesAreKept() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "snapshots-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        for i in 0..<12 {
            let path = folder + "/\(i).jpg"
            try Data([0xFF, 0xD8]).write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes(
                [.modificationDate: t0.addingTimeInterval(Double(i))], ofItemAtPath: path)
        }
        try Data().write(to: URL(fileURLWithPath: folder + "/notes.txt"))
        XCTAssertEqual(Snapshotter.prune(folder: folder, keeping: 5), 7)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        XCTAssertEqual(left, ["10.jpg", "11.jpg", "7.jpg", "8.jpg", "9.jpg", "notes.txt"])
        XCTAssertEqual(Snapshotter.prune(folder: folder, keeping: 5), 0)
    }
}
