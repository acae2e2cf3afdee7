import Foundation
import GRDB
import XCTest

@testable import MediaLibrary

final class BackupQueueTests: XCTestCase {
    /// A delete cancels the upload still waiting for the same recording, and says why in one line.
    func testADeleteCancelsTheWaitingUploadWithItsReason() async throws {
        let library = try Library.inMemory()
        let id = "0000000a-0000-4000-8000-00000000000a"
        try await library.enqueueBackup(.upload, recordingId: id)
        try await library.enqueueBackup(.delete, recordingId: id)
        let jobs = try await library.database.read { db in
            try BackupJob.order(Column("id")).fetchAll(db)
        }
        XCTAssertEqual(jobs.map(\.kind), [.upload, .delete])
        XCTAssertEqual(jobs.map(\.state), [.done, .pending])
        XCTAssertEqual(jobs.first?.lastError, "cancelled: recording deleted")
    }
}
