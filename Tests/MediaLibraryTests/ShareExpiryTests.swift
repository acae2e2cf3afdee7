import ApplianceBase
import ApplianceProtocol
import Foundation
import XCTest

@testable import MediaLibrary

/// Share links expire at their time to the millisecond: answered before, never at or after it, not listed, and
/// swept when a new link is made. (End to end, the shortest link lasts 36 s; here the clock is a parameter.)
final class ShareExpiryTests: XCTestCase {
    private var directory: URL!
    private var library: Library!
    private let id = "0123abcd-0000-4000-8000-000000000001"
    private let start = Date(timeIntervalSince1970: 1_800_000_000)

    override func setUp() async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "shares-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        library = try Library.inMemory()
        try await library.insert(
            Recording(id: id, title: "shared", createdAt: start, path: "/x/\(id).mp4", state: .complete))
    }

    override func tearDown() async throws {
        library = nil
        try? FileManager.default.removeItem(at: directory)
    }

    func testALinkWorksUntilItsExpiryAndNotAfter() async throws {
        let expires = start.addingTimeInterval(36)
        try await library.insertShare(token: "tok-a", recordingId: id, createdAt: start, expiresAt: expires)

        let fresh = try await library.share(token: "tok-a", at: start)
        XCTAssertEqual(fresh?.recordingId, id)
        XCTAssertEqual(fresh?.title, "shared")
        XCTAssertEqual(fresh?.url, "/s/tok-a")
        let almost = try await library.share(token: "tok-a", at: expires.addingTimeInterval(-0.002))
        XCTAssertNotNil(almost, "a link still works 2 ms before it expires")
        let atExpiry = try await library.share(token: "tok-a", at: expires)
        XCTAssertNil(atExpiry, "a link no longer works at its expiry")
        let after = try await library.share(token: "tok-a", at: expires.addingTimeInterval(3600))
        XCTAssertNil(after)
        let listedBefore = try await library.shares(at: start)
        XCTAssertEqual(listedBefore.map(\.id), [Library.shareID(token: "tok-a")])
        XCTAssertEqual(listedBefore.map(\.token), [nil], "a list has no token: the device does not keep it")
        let listedAfter = try await library.shares(at: expires)
        XCTAssertTrue(listedAfter.isEmpty, "an expired link is not listed")
    }

    func testExpiredLinksAreSweptWhenANewOneIsMade() async throws {
        try await library.insertShare(
            token: "old", recordingId: id, createdAt: start, expiresAt: start.addingTimeInterval(10))
        try await library.insertShare(
            token: "long", recordingId: id, createdAt: start, expiresAt: start.addingTimeInterval(1000))
        try await library.insertShare(
            token: "new", recordingId: id, createdAt: start.addingTimeInterval(20),
            expiresAt: start.addingTimeInterval(100))
        // Even asked about a moment before it expired, the swept row is gone.
        let swept = try await library.share(token: "old", at: start)
        XCTAssertNil(swept)
        let kept = try await library.share(token: "long", at: start.addingTimeInterval(20))
        XCTAssertNotNil(kept)
        let listed = try await library.shares(at: start.addingTimeInterval(20)).map(\.id)
        XCTAssertEqual(Set(listed), Set(["long", "new"].map { Library.shareID(token: $0) }))
    }

    func testRevokedAndUnknownTokens() async throws {
        try await library.insertShare(
            token: "tok-b", recordingId: id, createdAt: start, expiresAt: start.addingTimeInterval(3600))
        let deleted = try await library.deleteShare("tok-b")
        XCTAssertEqual(deleted, Library.shareID(token: "tok-b"))
        let again = try await library.deleteShare("tok-b")
        XCTAssertNil(again, "a second revoke finds nothing")
        let revoked = try await library.share(token: "tok-b", at: start)
        XCTAssertNil(revoked)
        let unknown = try await library.share(token: "never-made", at: start)
        XCTAssertNil(unknown)
        let likePattern = try await library.share(token: "%", at: start)
        XCTAssertNil(likePattern)
    }

    /// A link is revoked by its id as lists show it; the database holds the token's hash, never the token.
    func testRevokedByIdAndStoredAsAHash() async throws {
        let token = "Zb3x_Q9-secret-token-of-43-characters-xxxxx"
        try await library.insertShare(
            token: token, recordingId: id, createdAt: start, expiresAt: start.addingTimeInterval(3600))
        let stored = try await library.database.read { db in
            try String.fetchAll(db, sql: "SELECT token_hash FROM shares")
        }
        XCTAssertEqual(stored, [Library.shareHash(token: token)])
        XCTAssertEqual(stored.first?.count, 64)
        let listed = try await library.shares(at: start)
        let id = try XCTUnwrap(listed.first?.id)
        let deleted = try await library.deleteShare(id.uppercased())
        XCTAssertEqual(deleted, id, "an id in capitals too")
        let after = try await library.share(token: token, at: start)
        XCTAssertNil(after)
    }
}
