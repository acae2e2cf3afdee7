import ApplianceBase
import ApplianceProtocol
import Crypto
import Foundation
import MediaLibrary

/// The checks a door makes: a name and password (the login form, HTTP Basic, ONVIF's PasswordText), or an API token
/// (`Authorization: Bearer`). Each answers an identity or nil, never why: the door says "wrong name or password".
extension AccountBook {
    public func verify(name: String, password: String, now: Date = Date()) async -> Identity? {
        let key = RecentChecks.key("p", name, password)
        if name == AccountRules.tokenFileName {
            let identity = tokenFileIdentity(password)
            if let identity { recent.remember(key, identity, now: now) }
            return identity
        }
        if let known = recent.find(key, now: now) { return current(known) }
        guard let user = try? await library.user(name: name) else {
            // As slow as a real check, so that the time of the answer does not tell which names exist.
            _ = await PasswordHashing.verify(password, hash: await decoyHash())
            return nil
        }
        guard await PasswordHashing.verify(password, hash: user.passwordHash) else { return nil }
        if keepsDigest && user.digestHA1.isEmpty {
            // RTSP was turned on after this password was set: its HA1 is made now that the password is known.
            try? await library.updateDigest(name: user.name, digestHA1: digest(name: user.name, password: password))
            changed()
        }
        let identity = Identity(name: user.name, role: user.role, generation: user.generation)
        recent.remember(key, identity, now: now)
        return identity
    }

    /// A bearer token: an account's API token, or the token_file password.
    public func verify(token: String, now: Date = Date()) async -> Identity? {
        let key = RecentChecks.key("t", "", token)
        if let identity = tokenFileIdentity(token) {
            recent.remember(key, identity, now: now)
            return identity
        }
        guard token.hasPrefix("apl_"), token.count < 200 else { return nil }
        if let known = recent.find(key, now: now) { return current(known) }
        guard let user = try? await library.user(tokenHash: PasswordHashing.tokenHash(token), at: now) else {
            return nil
        }
        let identity = Identity(name: user.name, role: user.role, generation: user.generation)
        recent.remember(key, identity, now: now)
        return identity
    }

    /// A name and password, or a token, that passed a full check in the last minutes (nil otherwise): a client that
    /// sends its credentials with every request is not guessing, so no door needs to count or slow it.
    public func recentlyVerified(name: String, password: String, now: Date = Date()) -> Identity? {
        recent.find(RecentChecks.key("p", name, password), now: now).flatMap(current)
    }

    public func recentlyVerified(token: String, now: Date = Date()) -> Identity? {
        recent.find(RecentChecks.key("t", "", token), now: now).flatMap(current)
    }

    /// Notes a successful login (shown as `last_login` in `users`).
    public func recordLogin(_ identity: Identity, now: Date = Date()) async {
        guard !identity.isTokenFile else { return }
        try? await library.recordLogin(name: identity.name, at: now)
    }

    private func tokenFileIdentity(_ password: String) -> Identity? {
        guard let tokenFile, tokenFile.matches(password) else { return nil }
        return Identity(name: AccountRules.tokenFileName, role: .admin, generation: 0, isTokenFile: true)
    }

    private func decoyHash() async -> String {
        if let hash = decoy.withLock({ $0 }) { return hash }
        let hash = (try? await PasswordHashing.hash(RandomToken.make(), cost: cost)) ?? ""
        decoy.withLock { $0 = hash }
        return hash
    }
}

/// Credentials that passed a check in the last minutes, by a keyed hash of what was sent (the secret itself is not
/// kept, not even in memory): bounded, and forgotten for an account whenever its password, role or tokens change.
final class RecentChecks: Sendable {
    static let lifetime: TimeInterval = 300
    static let limit = 1000
    private static let salt = SymmetricKey(size: .bits256)
    private let entries = Locked<[String: (identity: Identity, expires: Date)]>([:])

    static func key(_ kind: String, _ name: String, _ secret: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Data("\(kind)\u{0}\(name)\u{0}\(secret)".utf8), using: salt)
        return Data(code).base64EncodedString()
    }

    func find(_ key: String, now: Date) -> Identity? {
        entries.withLock { all in
            guard let entry = all[key] else { return nil }
            if entry.expires <= now {
                all[key] = nil
                return nil
            }
            return entry.identity
        }
    }

    func remember(_ key: String, _ identity: Identity, now: Date) {
        entries.withLock { all in
            if all.count >= Self.limit { all = all.filter { $0.value.expires > now } }
            if all.count >= Self.limit { all.removeAll() }
            all[key] = (identity, now.addingTimeInterval(Self.lifetime))
        }
    }

    func forget(name: String) { entries.withLock { all in all = all.filter { $0.value.identity.name != name } } }
}
