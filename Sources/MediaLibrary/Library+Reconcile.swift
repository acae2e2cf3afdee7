import ApplianceProtocol
import Foundation
import GRDB

/// The start-up reconcile's writes: many rows at once by rowid, in batches of `reconcileBatch` (one transaction
/// each, so recording and the front ends get the database between them), each batch one SQL statement. Row by row
/// (fetch, change, write back) 100,000 rows took 50 s at start-up here.
extension Library {
    package static let reconcileBatch = 2000

    /// Rows whose file is gone become `failed`: `interrupted` for a row still `recording` (the daemon died before it
    /// made the file), `lostPrefix` and the path for the others. Rows that are `failed` already, or that were
    /// deleted meanwhile, are left alone. Returns the ids marked, in the order given.
    package func markFilesMissing(rowids: [Int64], interrupted: String, lostPrefix: String) async throws -> [String] {
        var marked: [String] = []
        for batch in rowids.chunked(Self.reconcileBatch) {
            marked += try await database.write { db in
                try String.fetchAll(
                    db,
                    SQLRequest<String>(
                        literal: """
                            UPDATE recordings SET
                              failure_reason = CASE WHEN state = \(Recording.State.recording) THEN \(interrupted)
                                                    ELSE \(lostPrefix) || path END,
                              state = \(Recording.State.failed)
                            WHERE rowid IN \(Array(batch)) AND state <> \(Recording.State.failed)
                            RETURNING id
                            """))
            }
        }
        return marked
    }

    /// Rows that had lost their file (`failed` for it) and have it again: `recovered`, no failure reason.
    package func markFilesBack(rowids: [Int64]) async throws -> [String] {
        var restored: [String] = []
        for batch in rowids.chunked(Self.reconcileBatch) {
            restored += try await database.write { db in
                try String.fetchAll(
                    db,
                    SQLRequest<String>(
                        literal: """
                            UPDATE recordings SET state = \(Recording.State.recovered), failure_reason = NULL
                            WHERE rowid IN \(Array(batch)) AND state = \(Recording.State.failed)
                            RETURNING id
                            """))
            }
        }
        return restored
    }
}

extension Array {
    /// Consecutive slices of at most `size` elements.
    package func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
