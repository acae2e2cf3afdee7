import ApplianceBase
import Crypto
import Foundation

/// WS-Security's UsernameToken as ONVIF clients send it: `Password` is Base64(SHA-1(nonce ‖ created ‖ password)),
/// the nonce Base64 bytes, `created` the exact text sent. A plain-text password (`#PasswordText`) is read apart
/// (`PlainPassword`): the device accepts it only over HTTPS.
package struct UsernameToken: Equatable {
    package var username: String
    package var digest: String
    package var nonce: Data
    package var created: String

    package init(username: String, digest: String, nonce: Data, created: String) {
        self.username = username
        self.digest = digest
        self.nonce = nonce
        self.created = created
    }

    package static let digestType =
        "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordDigest"
    package static let textType =
        "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordText"

    /// A UsernameToken whose password is sent as it is (`#PasswordText`): what an account signs with, since the
    /// device keeps only a bcrypt hash of it, and a digest can only be checked against the password itself.
    package struct PlainPassword: Equatable {
        package var username: String
        package var password: String
    }

    /// The token's plain password when it has one (`#PasswordText`), nil for a digest.
    package static func plain(header: XMLTree?) throws(SOAPFault) -> PlainPassword? {
        let token = try usernameToken(header)
        guard let password = token.child("Password", in: ONVIFNamespace.security) else {
            throw .notAuthorized("the UsernameToken has no Password")
        }
        guard password.attribute("Type") == textType else { return nil }
        return PlainPassword(username: token.value("Username") ?? "", password: password.text)
    }

    private static func usernameToken(_ header: XMLTree?) throws(SOAPFault) -> XMLTree {
        guard
            let token = header?.child("Security", in: ONVIFNamespace.security)?.child(
                "UsernameToken", in: ONVIFNamespace.security)
        else {
            throw .notAuthorized("no WS-Security UsernameToken in the request")
        }
        return token
    }

    /// The token in a SOAP header, or why it cannot be used.
    package static func from(header: XMLTree?) throws(SOAPFault) -> UsernameToken {
        let token = try usernameToken(header)
        guard let password = token.child("Password", in: ONVIFNamespace.security) else {
            throw .notAuthorized("the UsernameToken has no Password")
        }
        if let type = password.attribute("Type"), type != digestType {
            throw .notAuthorized("a password type of \(type.split(separator: "#").last ?? "?") is not accepted here")
        }
        guard let nonceText = token.value("Nonce"), let nonce = Data(base64Encoded: nonceText), !nonce.isEmpty,
            let created = token.value("Created"), !created.isEmpty
        else {
            throw .notAuthorized("the UsernameToken needs a Nonce and a Created time")
        }
        return UsernameToken(
            username: token.value("Username") ?? "",
            digest: password.text.trimmingCharacters(in: .whitespacesAndNewlines),
            nonce: nonce, created: created)
    }

    package static func digest(nonce: Data, created: String, password: String) -> String {
        var hasher = Insecure.SHA1()
        hasher.update(data: nonce)
        hasher.update(data: Data(created.utf8))
        hasher.update(data: Data(password.utf8))
        return Data(hasher.finalize()).base64EncodedString()
    }
}

/// Checks tokens against the device's user and password: the digest, the time (`created` within `window` of now,
/// either way: clocks of cameras and NVRs drift), and replay (a nonce seen within the window is refused).
package final class UsernameTokenVerifier: Sendable {
    package static let window: TimeInterval = 300
    /// Nonces remembered at most; past this the oldest are forgotten early (a flood cannot grow memory).
    package static let maxRemembered = 10_000

    package let user: String
    package let maxRemembered: Int
    private let password: String
    private let seen = Locked<[Data: Date]>([:])

    package init(user: String, password: String, maxRemembered: Int = UsernameTokenVerifier.maxRemembered) {
        (self.user, self.password, self.maxRemembered) = (user, password, maxRemembered)
    }

    package func verify(_ token: UsernameToken, now: Date = Date()) throws(SOAPFault) {
        let expected = UsernameToken.digest(nonce: token.nonce, created: token.created, password: password)
        guard RandomToken.equal(token.username, user), RandomToken.equal(token.digest, expected) else {
            throw .notAuthorized("wrong user name or password")
        }
        guard let created = ONVIFTime.date(token.created) else {
            throw .notAuthorized("Created '\(token.created)' is not a date and time")
        }
        guard abs(created.timeIntervalSince(now)) <= Self.window else {
            throw .notAuthorized(
                "Created is more than \(Int(Self.window)) s from this device's time (\(ONVIFTime.string(now)))")
        }
        let replayed = seen.withLock { seen -> Bool in
            if seen.count >= maxRemembered { seen = seen.filter { now.timeIntervalSince($0.value) < Self.window * 2 } }
            if seen.count >= maxRemembered, let oldest = seen.min(by: { $0.value < $1.value }) {
                seen[oldest.key] = nil
            }
            if seen[token.nonce] != nil { return true }
            seen[token.nonce] = now
            return false
        }
        if replayed { throw .notAuthorized("this nonce was used already (replayed request)") }
    }

    /// Nonces remembered now.
    package var remembered: Int { seen.withLock { $0.count } }

    /// Forgets nonces past the window (called from the event feed's clock).
    package func purge(now: Date = Date()) {
        seen.withLock { $0 = $0.filter { now.timeIntervalSince($0.value) < Self.window * 2 } }
    }
}
