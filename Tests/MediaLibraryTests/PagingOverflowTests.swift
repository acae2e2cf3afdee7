import ApplianceProtocol
import Foundation
import XCTest

@testable import MediaLibrary

/// The Library's paging arithmetic never traps, whatever reaches it (the edge bounds page and per_page; this is the
/// second line: `?page=9223372036854775807` once reached `(page - 1) * perPage` and killed the daemon).
final class PagingOverflowTests: XCTestCase {
    func testRowsBeforeAPageIsOverflowChecked() {
        XCTAssertEqual(Library.rowsBefore(page: 1, perPage: 10), 0)
        XCTAssertEqual(Library.rowsBefore(page: 3, perPage: 10), 20)
        XCTAssertNil(Library.rowsBefore(page: Int.max, perPage: 1000))
        XCTAssertNil(Library.rowsBefore(page: Int.max / 2 + 2, perPage: 2))
        XCTAssertNil(Library.rowsBefore(page: 0, perPage: 10))
        XCTAssertNil(Library.rowsBefore(page: Int.min, perPage: 10))
        XCTAssertNil(Library.rowsBefore(page: 2, perPage: 0))
    }

    func testEveryViewAnswersAnEmptyPageFarPastTheEnd() async throws {
        let library = try Library.inMemory()
        try await library.insert(
            Recording(
                id: UUID().uuidString.lowercased(), title: "one", createdAt: Date(), path: "/x/1.mp4", state: .complete)
        )
        for page in [Int.max, Int.max / 2, 2] {
            let plain = try await library.page(page, perPage: 1000)
            XCTAssertEqual(plain.items.count, 0)
            XCTAssertEqual(plain.total, 1)
            let grouped = try await library.groupedPage(page, perPage: 1000)
            let segments = try await library.segmentPage(group: "g", page: page, perPage: 1000)
            let filtered = try await library.filteredPage(ListFilter(search: "one"), page: page, perPage: 1000)
            XCTAssertEqual([grouped.items.count, segments.items.count, filtered.items.count], [0, 0, 0])
        }
    }
}
