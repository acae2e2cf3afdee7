import XCTest

@testable import MediaLibrary

/// The grouped list's in-memory entries against a plain model (what the old GROUP BY computed), over random inserts
/// and deletes of clips and loop segments.
final class EntryIndexTests: XCTestCase {
    struct Row: Hashable {
        var key: PageIndex.Key
        var group: String?
    }

    /// One entry per clip and per group; a group's entry is its oldest row; newest first.
    func model(_ rows: Set<Row>) -> [PageIndex.Key] {
        var heads: [String: PageIndex.Key] = [:]
        var singles: [PageIndex.Key] = []
        for row in rows {
            guard let group = row.group else {
                singles.append(row.key)
                continue
            }
            // Oldest: the smallest creation time, then rowid (the largest under newest-first order).
            if let current = heads[group], !(current < row.key) { continue }
            heads[group] = row.key
        }
        return (singles + heads.values).sorted()
    }

    func testMatchesTheModelThroughInsertsAndDeletes() {
        var generator = SystemRandomNumberGenerator()
        var rows = Set<Row>()
        var rowid: Int64 = 0
        for _ in 0..<200 {  // start from an existing library
            rowid += 1
            rows.insert(
                Row(
                    key: .init(createdAt: Int64.random(in: 0..<1000, using: &generator), rowid: rowid),
                    group: Bool.random(using: &generator) ? "g\(Int.random(in: 0..<8, using: &generator))" : nil))
        }
        var index = EntryIndex(rows: rows.map { ($0.key, $0.group) })
        XCTAssertEqual(index.keys(offset: 0, limit: 10_000), model(rows))
        for step in 0..<2000 {
            if rows.isEmpty || Int.random(in: 0..<3, using: &generator) > 0 {
                rowid += 1
                let row = Row(
                    key: .init(createdAt: Int64.random(in: 0..<1000, using: &generator), rowid: rowid),
                    group: Bool.random(using: &generator) ? "g\(Int.random(in: 0..<8, using: &generator))" : nil)
                rows.insert(row)
                index.insert(row.key, group: row.group)
            } else {
                let row = rows.randomElement(using: &generator)!
                rows.remove(row)
                index.remove(row.key, group: row.group)
            }
            let expected = model(rows)
            XCTAssertEqual(index.count, expected.count, "step \(step)")
            XCTAssertEqual(index.keys(offset: 0, limit: 10_000), expected, "step \(step)")
        }
        let all = model(rows)
        XCTAssertEqual(index.keys(offset: 3, limit: 4), Array(all[3..<min(all.count, 7)]))
        XCTAssertEqual(index.keys(offset: all.count, limit: 4), [])
    }
}
