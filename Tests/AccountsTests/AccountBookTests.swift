import ApplianceBase
import ApplianceProtocol
import Foundation
import MediaLibrary
import XCTest

@testable import Accounts

/// Accounts over a real SQLite file: bcrypt hashes only, roles, password changes ending sessions, the last admin
/// kept, API tokens by hash. (bcrypt runs at its lowest cost here, 4, except where the cost is what is checked.)
final class AccountBookTests: XCTestCase {
    private var folder = ""

    override func setUp() {
        folder = NSTemporaryDirectory() + "accounts-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    private func book(tokenFile: Password? = nil, keepsDigest: Bool = true, cost: UInt8 = 4) async throws -> AccountBook
    {
        try AccountBook(
            library: try Library(path: folder + "/appliance.sqlite"), tokenFile: tokenFile, keepsDigest: keepsDigest,
            cost: cost)
    }

    /// The Digest HA1 (an MD5 that opens RTSP) is kept only while RTSP is on: off, none is stored and those stored
    /// are forgotten at start (not left in the file's free pages); on again, an account gets it back the next time
    /// its password is used, and RTSP's entries follow.
    func testTheDigestIsKeptOnlyWhileRTSPIsOn() async throws {
        let ha1 = PasswordHashing.digestHA1(name: "anna", password: "correct horse 1")
        do {
            let on = try await book()
            _ = try await on.add(name: "anna", role: .admin, password: Secret("correct horse 1"))
            let entries = try await on.digestEntries()
            XCTAssertEqual(entries.talkers, ["anna:appliance:\(ha1)"])
        }
        do {
            let off = try await book(keepsDigest: false)
            let stored = try await Library(path: folder + "/appliance.sqlite").user(name: "anna")
            XCTAssertEqual(stored?.digestHA1, "", "forgotten when RTSP is off")
            _ = try await off.add(name: "vic", role: .viewer, password: Secret("viewer password"))
            let vic = try await Library(path: folder + "/appliance.sqlite").user(name: "vic")
            XCTAssertEqual(vic?.digestHA1, "", "none made while RTSP is off")
            let entries = try await off.digestEntries()
            XCTAssertEqual(entries.talkers + entries.viewers, [])
        }
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + file))
            XCTAssertNil(bytes.range(of: Data(ha1.utf8)), "\(file) still holds the HA1")
        }
        let again = try await book()
        let told = Locked(0)
        again.onChange { told.withLock { $0 += 1 } }
        let before = try await again.digestEntries()
        XCTAssertEqual(before.talkers, [], "no HA1 until the password is used")
        let anna = await again.verify(name: "anna", password: "correct horse 1")
        XCTAssertNotNil(anna)
        let after = try await again.digestEntries()
        XCTAssertEqual(after.talkers, ["anna:appliance:\(ha1)"], "made from the password when it was used")
        XCTAssertEqual(told.withLock { $0 }, 1, "RTSP's server is told to take the entries again")
    }

    func testAPasswordChecksAndNothingButItsHashesIsStored() async throws {
        let accounts = try await book()
        XCTAssertFalse(accounts.hasAccounts)
        let added = try await accounts.add(name: "anna", role: .admin, password: Secret("correct horse 1"))
        XCTAssertEqual(added.role, .admin)
        XCTAssertTrue(accounts.hasAccounts)
        let anna = await accounts.verify(name: "anna", password: "correct horse 1")
        XCTAssertEqual(anna?.name, "anna")
        XCTAssertEqual(anna?.role, .admin)
        let wrongPassword = await accounts.verify(name: "anna", password: "correct horse 2")
        XCTAssertNil(wrongPassword)
        let unknownName = await accounts.verify(name: "bob", password: "correct horse 1")
        XCTAssertNil(unknownName)
        let token = try await accounts.makeToken(name: "anna")
        XCTAssertTrue(token.token.hasPrefix("apl_"))
        let byToken = await accounts.verify(token: token.token)
        XCTAssertEqual(byToken?.name, "anna")
        let wrongToken = await accounts.verify(token: "apl_" + RandomToken.make())
        XCTAssertNil(wrongToken)
        await accounts.recordLogin(try XCTUnwrap(anna))
        let revoked = try await accounts.revokeTokens(name: "anna")
        XCTAssertEqual(revoked.tokens, 0)
        let afterRevoke = await accounts.verify(token: token.token)
        XCTAssertNil(afterRevoke, "a revoked token is refused at once, though it was checked a moment ago")
        _ = try await accounts.makeToken(name: "anna")
        let listed = try await accounts.list()
        XCTAssertEqual(listed.items.map(\.name), ["anna"])
        XCTAssertNotNil(listed.items[0].lastLogin)
        XCTAssertEqual(listed.items[0].tokens, 1)

        // Every byte under the folder (the database, its WAL): neither the password nor the token in clear.
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + file))
            for secret in ["correct horse 1", token.token, String(token.token.dropFirst(4))] {
                XCTAssertNil(bytes.range(of: Data(secret.utf8)), "\(file) holds a secret in clear")
            }
        }
        let stored = try await Library(path: folder + "/appliance.sqlite").user(name: "anna")
        XCTAssertTrue(stored?.passwordHash.hasPrefix("$2b$04$") == true, stored?.passwordHash ?? "no row")
        XCTAssertEqual(stored?.digestHA1, PasswordHashing.digestHA1(name: "anna", password: "correct horse 1"))
    }

    func testAPasswordChangeEndsWhatTheOldOneOpenedAndARoleChangeTakesAtOnce() async throws {
        let accounts = try await book()
        _ = try await accounts.add(name: "anna", role: .admin, password: Secret("first password"))
        _ = try await accounts.add(name: "vic", role: .viewer, password: Secret("viewer password"))
        let checked = await accounts.verify(name: "vic", password: "viewer password")
        let vic = try XCTUnwrap(checked)
        XCTAssertEqual(accounts.current(vic)?.role, .viewer)
        _ = try await accounts.setRole(name: "vic", role: .admin)
        XCTAssertEqual(accounts.current(vic)?.role, .admin, "the role follows without a new login")
        _ = try await accounts.setPassword(name: "vic", password: Secret("second password"))
        XCTAssertNil(accounts.current(vic), "a session opened with the old password has ended")
        let old = await accounts.verify(name: "vic", password: "viewer password")
        XCTAssertNil(old, "the old password no longer works, even though it was checked a moment ago")
        let new = await accounts.verify(name: "vic", password: "second password")
        XCTAssertNotNil(new)
        _ = try await accounts.remove(name: "vic")
        XCTAssertNil(accounts.current(try XCTUnwrap(new)))
        let afterRemoval = await accounts.verify(name: "vic", password: "second password")
        XCTAssertNil(afterRemoval)
    }

    func testTheLastAdminStaysUnlessTheTokenFileIsThere() async throws {
        let accounts = try await book()
        _ = try await accounts.add(name: "anna", role: .admin, password: Secret("first password"))
        await XCTAssertThrowsCode(.conflict) { _ = try await accounts.remove(name: "anna") }
        await XCTAssertThrowsCode(.conflict) { _ = try await accounts.setRole(name: "anna", role: .viewer) }
        await XCTAssertThrowsCode(.conflict) {
            _ = try await accounts.add(name: "anna", role: .viewer, password: Secret("other password"))
        }
        await XCTAssertThrowsCode(.notFound) { _ = try await accounts.remove(name: "nobody") }

        let file = folder + "/token"
        try "legacy password\n".write(toFile: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        let withFile = try await book(tokenFile: try Password(file: file))
        let legacy = await withFile.verify(name: "appliance", password: "legacy password")
        XCTAssertEqual(legacy, Identity(name: "appliance", role: .admin, generation: 0, isTokenFile: true))
        let legacyBearer = await withFile.verify(token: "legacy password")
        XCTAssertEqual(legacyBearer?.isTokenFile, true)
        let removed = try await withFile.remove(name: "anna")
        XCTAssertTrue(removed.removed)
        let list = try await withFile.list()
        XCTAssertTrue(list.tokenFile)
    }

    func testBadNamesAndPasswordsAreOneLineErrors() async throws {
        let accounts = try await book()
        for name in ["", "Anna", "a b", "-x", String(repeating: "a", count: 33), "appliance", "ann:a", "é"] {
            await XCTAssertThrowsCode(.badRequest) {
                _ = try await accounts.add(name: name, role: .viewer, password: Secret("good password"))
            }
        }
        for password in ["short", String(repeating: "x", count: 73), "new\nline pass"] {
            await XCTAssertThrowsCode(.badRequest) {
                _ = try await accounts.add(name: "vic", role: .viewer, password: Secret(password))
            }
        }
        XCTAssertFalse(accounts.hasAccounts)
        XCTAssertEqual(
            "\(Command.userAdd(name: "vic", role: .viewer, password: Secret("good password")))".contains(
                "good password"), false)
    }

    /// The default cost is what a login pays: bcrypt's `$2b$10$`.
    func testTheDefaultCostIsWrittenInTheHash() async throws {
        let accounts = try await book(cost: PasswordHashing.defaultCost)
        _ = try await accounts.add(name: "anna", role: .admin, password: Secret("first password"))
        let stored = try await Library(path: folder + "/appliance.sqlite").user(name: "anna")
        XCTAssertTrue(stored?.passwordHash.hasPrefix("$2b$10$") == true)
    }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
func XCTAssertThrowsCode(
    _ code: ApplianceError.Code, file: StaticString = #filePath, line: UInt = #line,
    _ body: () async throws -> Void
) async {
    do {
        try await body()
        XCTFail("no error (expected \(code.rawValue))", file: file, line: line)
    } catch let error as ApplianceError {
        XCTAssertEqual(error.code, code, error.message, file: file, line: line)
    } catch {
        XCTFail("\(error)", file: file, line: line)
    }
}
