import ApplianceBase
import ApplianceProtocol
import Logging

/// Every refused credential, told twice: a log line and an `auth_failed` event, with the client's address and the
/// name that was tried (cut short and quoted: it is the client's text). Never the password or token.
public struct AuthRefusals: Sendable {
    let events: EventHub
    let logger: Logger

    public init(events: EventHub, logger: Logger) { (self.events, self.logger) = (events, logger) }

    public func refused(door: String, client: String, user: String?, reason: String) {
        let name = user.map { String($0.prefix(40)) }
        logger.warning(
            "\(door): refused \(name.map { "user \($0.debugDescription)" } ?? "a credential") from \(client): \(reason)"
        )
        events.publish(.authFailed(AuthFailure(door: door, client: client, user: name, reason: reason)))
    }

    /// A failure the guessing ledger counted: logged and evented when it starts a burst or locks a key, counted only
    /// otherwise (a guesser's hundred tries are two lines, not a hundred).
    public func refused(_ failure: GuessLedger.Failure, door: String, client: String, user: String?, reason: String) {
        guard failure.burstStarted || failure.locked else { return }
        let lock = failure.locked ? "; refused for \(Int(GuessLedger.lockFor / 60)) minutes" : ""
        refused(door: door, client: client, user: user, reason: reason + lock)
    }

    public func accepted(door: String, client: String, user: String) {
        logger.info("\(door): \(user.debugDescription) logged in from \(client)")
    }
}
