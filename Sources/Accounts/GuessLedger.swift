import ApplianceBase
import Foundation

/// One count of failed credentials for every door (web login, Basic, Bearer, RTSP Digest, ONVIF UsernameToken, WHEP),
/// per client address and per account, so that guessing at one door is slowed at all of them.
///
/// - One check at a time per key: attempts sent in parallel wait for the one being checked (the web) or are refused
///   unchecked (RTSP, whose server cannot wait); a first burst gets no more checks than a patient guesser.
/// - After a failure the key's next check waits 0.5 s, doubling per failure in a row up to 8 s; after
///   `lockAfter` failures in a row the key is refused unchecked for `lockFor` (a wrong and a right password get the
///   same refusal then, so the refusals tell a guesser nothing).
/// - A client that has signed in as an account before keeps its own budget for that account: someone else's
///   guesses at the account (from other addresses) do not lock its owner out.
/// - A key quiet for `forgetAfter` is forgotten; memory is bounded by `maxKeys` (past it, the keys with the fewest
///   failures go first: a flood of new addresses cannot wipe a patient guesser's count).
public final class GuessLedger: Sendable {
    public static let firstDelay = 0.5, maxDelay = 8.0
    public static let lockAfter = 20
    public static let lockFor: TimeInterval = 600
    public static let forgetAfter: TimeInterval = 900
    /// A check that never reported back (its request was cancelled) stops holding its key after this long.
    static let staleCheck: TimeInterval = 30
    /// How long a successful sign-in makes its client trusted for that account.
    static let trustFor: TimeInterval = 30 * 86_400
    let maxKeys: Int

    /// What an attempt may do now.
    public enum Admission: Equatable, Sendable {
        /// Check the credential, then report `failed` or `succeeded`.
        case check
        /// Come back at this moment (another check of the same key is under way, or a failure's delay runs).
        case wait(until: Date)
        /// Refused unchecked until this moment.
        case refused(until: Date)
    }

    /// What a failure did: when its answer may go back, and whether it is news (the first of a burst, or the lock).
    public struct Failure: Equatable, Sendable {
        public var answerAt: Date
        /// The first failure of this client at this account since it was last quiet: log and event it (later ones
        /// of the same burst are only counted).
        public var burstStarted: Bool
        /// This failure locked a key: log and event it.
        public var locked: Bool
    }

    struct Entry {
        var failures = 0
        var nextSlot = Date.distantPast
        var lockedUntil: Date?
        var checkingSince: Date?
        var lastFailure = Date.distantPast
    }

    /// What the ledger has seen since start (`metrics`: `appliance_credential_checks_total`).
    public struct Counts: Sendable, Equatable {
        /// Checks it let through, and how many of those failed.
        public var checked = 0, failed = 0
        /// Attempts refused unchecked (locked, or a check that could not wait for its turn).
        public var refused = 0
        /// Keys locked for `lockFor`.
        public var locks = 0
    }

    struct State {
        var counts = Counts()
        var entries: [String: Entry] = [:]
        /// "client|account" → last successful sign-in.
        var trusted: [String: Date] = [:]
        /// "client|account" → last failure, for telling a new burst from the same one.
        var bursts: [String: Date] = [:]
    }

    let state = Locked(State())

    public init(maxKeys: Int = 10_000) { self.maxKeys = maxKeys }

    /// The keys an attempt is counted under: the client's address, and the account unless this client has signed in
    /// as it before.
    func keys(client: String, account: String?, in state: State) -> [String] {
        guard let account else { return ["client:" + client] }
        let trusted = state.trusted[client + "|" + account] != nil
        return ["client:" + client] + (trusted ? [] : ["account:" + account])
    }

    public func delay(after failures: Int) -> Double {
        min(Self.maxDelay, Self.firstDelay * pow(2, Double(min(10, max(0, failures - 1)))))
    }

    public var counts: Counts { state.withLock { $0.counts } }

    /// Whether this attempt may be checked now; `.check` holds its keys until `failed` or `succeeded`. `canWait`:
    /// false for a door that cannot hold a request (RTSP's server): a wait is refused instead.
    public func admit(client: String, account: String?, now: Date = Date(), canWait: Bool = true) -> Admission {
        state.withLock { state in
            let admission = decide(&state, client: client, account: account, now: now)
            switch admission {
            case .check: state.counts.checked += 1
            case .refused: state.counts.refused += 1
            case .wait(let until):
                guard !canWait else { break }
                state.counts.refused += 1
                return .refused(until: until)
            }
            return admission
        }
    }

    /// A waiting attempt that gave up (its wait would be too long): counted as refused.
    func gaveUp() { state.withLock { $0.counts.refused += 1 } }

    private func decide(_ state: inout State, client: String, account: String?, now: Date) -> Admission {
        let keys = keys(client: client, account: account, in: state)
        var waitUntil = now
        for key in keys {
            guard var entry = state.entries[key] else { continue }
            if let locked = entry.lockedUntil {
                if locked > now { return .refused(until: locked) }
                entry.lockedUntil = nil
                entry.failures = 0
                state.entries[key] = entry
            }
            if let since = entry.checkingSince, now.timeIntervalSince(since) < Self.staleCheck {
                waitUntil = max(waitUntil, now.addingTimeInterval(0.05))
            }
            waitUntil = max(waitUntil, entry.nextSlot)
        }
        if waitUntil > now { return .wait(until: waitUntil) }
        for key in keys { state.entries[key, default: Entry()].checkingSince = now }
        return .check
    }

    /// Counts a failed check under its keys.
    public func failed(client: String, account: String?, now: Date = Date()) -> Failure {
        state.withLock { state in
            forgetQuiet(&state, now: now)
            var failure = Failure(answerAt: now, burstStarted: false, locked: false)
            state.counts.failed += 1
            for key in keys(client: client, account: account, in: state) {
                var entry = state.entries[key] ?? Entry()
                entry.checkingSince = nil
                entry.failures += 1
                entry.lastFailure = now
                entry.nextSlot = now.addingTimeInterval(delay(after: entry.failures))
                if entry.failures >= Self.lockAfter && entry.lockedUntil == nil {
                    entry.lockedUntil = now.addingTimeInterval(Self.lockFor)
                    failure.locked = true
                    state.counts.locks += 1
                }
                failure.answerAt = max(failure.answerAt, entry.nextSlot)
                state.entries[key] = entry
            }
            let pair = client + "|" + (account ?? "")
            if let last = state.bursts[pair], now.timeIntervalSince(last) < Self.forgetAfter {
            } else {
                failure.burstStarted = true
            }
            state.bursts[pair] = now
            return failure
        }
    }

    /// A right credential: the client's count is cleared and it is trusted for this account from now on.
    public func succeeded(client: String, account: String?, now: Date = Date()) {
        state.withLock { state in
            for key in keys(client: client, account: account, in: state) {
                guard var entry = state.entries[key] else { continue }
                if key.hasPrefix("client:") || entry.failures == 0 {
                    state.entries[key] = nil
                } else {
                    entry.checkingSince = nil  // the account's count stays: someone else may be guessing at it
                    state.entries[key] = entry
                }
            }
            if let account {
                state.trusted[client + "|" + account] = now
                if state.trusted.count > maxKeys, let oldest = state.trusted.min(by: { $0.value < $1.value })?.key {
                    state.trusted[oldest] = nil
                }
            }
            state.bursts[client + "|" + (account ?? "")] = nil
        }
    }

    /// The check was not made after all (the request failed for another reason): the keys are free again.
    public func abandoned(client: String, account: String?) {
        state.withLock { state in
            for key in keys(client: client, account: account, in: state) { state.entries[key]?.checkingSince = nil }
        }
    }

    /// Keys quiet for `forgetAfter` (and not locked) go; past `maxKeys` the quietest go too.
    private func forgetQuiet(_ state: inout State, now: Date) {
        guard state.entries.count >= maxKeys || state.bursts.count >= maxKeys else { return }
        state.entries = state.entries.filter { _, entry in
            (entry.lockedUntil.map { $0 > now } ?? false) || now.timeIntervalSince(entry.lastFailure) < Self.forgetAfter
                || entry.checkingSince != nil
        }
        state.bursts = state.bursts.filter { now.timeIntervalSince($0.value) < Self.forgetAfter }
        state.trusted = state.trusted.filter { now.timeIntervalSince($0.value) < Self.trustFor }
        if state.entries.count >= maxKeys {
            // The fewest failures go first (a flood of one-try addresses pushes out its own kind), the oldest of those.
            let quietest = state.entries.sorted {
                ($0.value.failures, $0.value.lastFailure) < ($1.value.failures, $1.value.lastFailure)
            }
            .prefix(state.entries.count - maxKeys / 2)
            for (key, _) in quietest { state.entries[key] = nil }
        }
        if state.bursts.count >= maxKeys { state.bursts.removeAll() }
    }
}

extension GuessLedger {
    /// Waits for this attempt's turn (at most `longest`): `.check`, or `.refused` when locked or the wait would be
    /// longer (the request is answered 429 then rather than held open).
    public func turn(client: String, account: String?, longest: TimeInterval = 10) async -> Admission {
        let started = Date()
        while true {
            let now = Date()
            switch admit(client: client, account: account, now: now) {
            case .check: return .check
            case .refused(let until): return .refused(until: until)
            case .wait(let until):
                if until.timeIntervalSince(started) > longest {
                    gaveUp()
                    return .refused(until: until)
                }
                try? await Task.sleep(for: .seconds(until.timeIntervalSince(now)))
                if Task.isCancelled { return .refused(until: until) }
            }
        }
    }

    /// Counts a failure and waits until its answer may go back.
    public func failedAfterDelay(client: String, account: String?) async -> Failure {
        let now = Date()
        let failure = failed(client: client, account: account, now: now)
        let wait = failure.answerAt.timeIntervalSince(now)
        if wait > 0 { try? await Task.sleep(for: .seconds(wait)) }
        return failure
    }
}
