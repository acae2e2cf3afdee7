import ApplianceProtocol
import XCTest

@testable import MediaLibrary

/// The daemon's starts and unclean exits, as the library counts them (what restart backoff and status read).
final class DaemonRunsTests: XCTestCase {
    func testRunsCountStartsAndUncleanExits() async throws {
        let library = try Library.inMemory()
        let first = try await library.beginRun()
        XCTAssertEqual(first, DaemonRuns(starts: 1, uncleanExits: 0, consecutiveUnclean: 0, previousStart: nil))
        try await library.endRun()
        let second = try await library.beginRun()  // the first stopped cleanly
        XCTAssertEqual(second.starts, 2)
        XCTAssertEqual(second.uncleanExits, 0)
        XCTAssertNotNil(second.previousStart)
        let third = try await library.beginRun()  // the second never stopped: a crash
        XCTAssertEqual([third.starts, third.uncleanExits, third.consecutiveUnclean], [3, 1, 1])
        let fourth = try await library.beginRun()
        XCTAssertEqual([fourth.starts, fourth.uncleanExits, fourth.consecutiveUnclean], [4, 2, 2])
        try await library.endRun()
        let fifth = try await library.beginRun()
        XCTAssertEqual([fifth.starts, fifth.uncleanExits, fifth.consecutiveUnclean], [5, 2, 0])
    }
}
