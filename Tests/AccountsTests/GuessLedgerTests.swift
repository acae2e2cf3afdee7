import Accounts
import Foundation
import XCTest

/// The one guessing ledger every door counts in, judged by the turns it hands out at given moments (time is passed
/// in: no clock, no sleeps).
final class GuessLedgerTests: XCTestCase {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    func testDelaysDoubleFromHalfASecondUpToEight() {
        let ledger = GuessLedger()
        XCTAssertEqual([1, 2, 3, 4, 5, 6, 1000, 0, -3].map(ledger.delay(after:)), [0.5, 1, 2, 4, 8, 8, 8, 0.5, 0.5])
    }

    /// The finding: a parallel first burst was let through all at once. Now a second attempt waits for the first
    /// one's check, and after its failure for the delay.
    func testAParallelFirstBurstIsCheckedOneAtATime() {
        let ledger = GuessLedger()
        XCTAssertEqual(ledger.admit(client: "192.0.2.7", account: "anna", now: t0), .check)
        guard case .wait = ledger.admit(client: "192.0.2.7", account: "anna", now: t0) else {
            return XCTFail("a second check at once")
        }
        let failure = ledger.failed(client: "192.0.2.7", account: "anna", now: t0 + 0.1)
        XCTAssertEqual(failure.answerAt, t0 + 0.6)
        XCTAssertTrue(failure.burstStarted)
        XCTAssertEqual(ledger.admit(client: "192.0.2.7", account: "anna", now: t0 + 0.2), .wait(until: t0 + 0.6))
        XCTAssertEqual(ledger.admit(client: "192.0.2.7", account: "anna", now: t0 + 0.6), .check)
        // A check that never reports back (its request was cancelled) stops holding the key after a while.
        XCTAssertEqual(ledger.admit(client: "192.0.2.7", account: "anna", now: t0 + 40), .check)
    }

    /// Guesses at one account from many addresses slow that account for every address but those that have signed in
    /// as it before: the owner keeps its own budget.
    func testGuessesFromElsewhereDoNotLockTheOwnerOut() {
        let ledger = GuessLedger()
        XCTAssertEqual(ledger.admit(client: "192.0.2.1", account: "anna", now: t0), .check)
        ledger.succeeded(client: "192.0.2.1", account: "anna", now: t0)  // the owner, once
        var now = t0
        for i in 0..<(GuessLedger.lockAfter * 2) {
            now += 9
            let attacker = "198.51.100.\(i % 2)"  // two addresses, as in the finding
            if ledger.admit(client: attacker, account: "anna", now: now) == .check {
                _ = ledger.failed(client: attacker, account: "anna", now: now)
            }
        }
        guard case .refused = ledger.admit(client: "203.0.113.9", account: "anna", now: now + 9) else {
            return XCTFail("a new address is not refused for a locked account")
        }
        XCTAssertEqual(
            ledger.admit(client: "192.0.2.1", account: "anna", now: now + 9), .check,
            "the owner's address gets in at once")
        ledger.succeeded(client: "192.0.2.1", account: "anna", now: now + 9)
        guard case .refused = ledger.admit(client: "203.0.113.9", account: "anna", now: now + 10) else {
            return XCTFail("the owner's sign-in cleared the attack's count on the account")
        }
    }

    /// Growing delays, then refusal for a while: one client guessing as fast as it is answered gets at most a few
    /// checks a minute, and then none until the lock ends; a right password during the lock is refused unchecked.
    func testOneClientGetsFewChecksAMinuteThenNone() {
        let ledger = GuessLedger()
        var now = t0
        var checks: [Date] = []
        var events = 0
        while now < t0 + 1200 {
            switch ledger.admit(client: "192.0.2.7", account: "anna", now: now) {
            case .check:
                checks.append(now)
                let failure = ledger.failed(client: "192.0.2.7", account: "anna", now: now)
                if failure.burstStarted || failure.locked { events += 1 }
                now = failure.answerAt
            case .wait(let until): now = until
            case .refused(let until):
                XCTAssertEqual(checks.count, GuessLedger.lockAfter)
                XCTAssertEqual(until.timeIntervalSince(checks.last!), GuessLedger.lockFor, accuracy: 0.001)
                now = until + 1
            }
            if checks.count > GuessLedger.lockAfter { break }
        }
        XCTAssertLessThanOrEqual(checks.filter { $0 < t0 + 60 }.count, 30, "checks in the first minute")
        for start in stride(from: 0.0, to: 1200, by: 60) {
            XCTAssertLessThanOrEqual(
                checks.filter { $0 >= t0 + start && $0 < t0 + start + 60 }.count, 30, "minute from \(start) s")
        }
        XCTAssertEqual(events, 2, "one event for the burst and one for the lock, not one per guess")
    }

    /// A success clears the client's own count; other clients are never slowed by one client's failures.
    func testASuccessClearsTheClientAndOthersAreNotSlowed() {
        let ledger = GuessLedger()
        XCTAssertEqual(ledger.admit(client: "a", account: nil, now: t0), .check)
        _ = ledger.failed(client: "a", account: nil, now: t0)
        XCTAssertEqual(ledger.admit(client: "b", account: nil, now: t0 + 0.1), .check)
        ledger.succeeded(client: "b", account: nil, now: t0 + 0.1)
        XCTAssertEqual(ledger.admit(client: "a", account: nil, now: t0 + 0.5), .check)
        ledger.succeeded(client: "a", account: nil, now: t0 + 0.5)
        XCTAssertEqual(ledger.admit(client: "a", account: nil, now: t0 + 0.5), .check, "a success clears the count")
    }

    /// Memory stays bounded without forgetting everything at once: past the limit, the quietest keys go and a key
    /// failing now keeps its count.
    func testManyClientsDoNotWipeTheLedger() {
        let ledger = GuessLedger(maxKeys: 100)
        var now = t0
        for _ in 0..<3 {
            now += 10
            XCTAssertEqual(ledger.admit(client: "guesser", account: nil, now: now), .check)
            _ = ledger.failed(client: "guesser", account: nil, now: now)
        }
        // The third failure at t0 + 30 holds the guesser until t0 + 32; a thousand addresses fail in the second after.
        for i in 0..<1000 {
            now += 0.001
            _ = ledger.admit(client: "flood-\(i)", account: nil, now: now)
            _ = ledger.failed(client: "flood-\(i)", account: nil, now: now)
        }
        XCTAssertEqual(
            ledger.admit(client: "guesser", account: nil, now: now), .wait(until: t0 + 32),
            "a thousand other addresses wiped the guesser's count")
    }
}
