import Accounts
import Foundation
import FrontEndInterface
import HTTPTypes

/// A credential check at one of the web's doors (Basic, Bearer, the login form, ONVIF), counted in the one guessing
/// ledger every door shares (`AccountBook.guesses`, RTSP's Digest included).
extension AccessMiddleware {
    /// Runs `check` when the ledger gives this client its turn (waiting out a failure's delay), counts what it
    /// answered, and logs and events a refusal once per burst. A client the ledger refuses gets 429 with
    /// Retry-After, unchecked: a right password then is refused too, so the answers tell a guesser nothing.
    func attempt(
        door: String, client: String, account: String?, reason: String,
        check: () async -> Identity?
    ) async throws -> Identity? {
        try await begin(client: client, account: account)
        let identity = await check()
        await end(door: door, client: client, account: account, reason: reason, passed: identity != nil)
        return identity
    }

    /// Waits for the ledger's turn; 429 when it refuses.
    func begin(client: String, account: String?) async throws {
        if case .refused(let until) = await accounts.guesses.turn(client: client, account: account) {
            throw Self.tooManyGuesses(until: until)
        }
    }

    /// Counts the check `begin` allowed (a failure waits out its delay), with the account the request named.
    func end(door: String, client: String, account: String?, reason: String, passed: Bool) async {
        let guesses = accounts.guesses
        guard !passed else { return guesses.succeeded(client: client, account: account) }
        refusals.refused(
            await guesses.failedAfterDelay(client: client, account: account), door: door, client: client, user: account,
            reason: reason)
    }

    /// 429 with the moment the client may try again.
    static func tooManyGuesses(until: Date) -> WebError {
        let seconds = max(1, Int(until.timeIntervalSinceNow.rounded(.up)))
        var error = WebError(
            .tooManyRequests,
            "too many wrong passwords from this address or for this account; try again in \(seconds) s")
        error.extraHeaders[.retryAfter] = String(seconds)
        return error
    }
}
