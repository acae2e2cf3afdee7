import Accounts
import ApplianceBase
import ApplianceProtocol
import Foundation
import FrontEndInterface

/// A logged-in browser: the cookie's random id, the CSRF token its pages send with every command, and who logged in
/// (checked against the accounts on every request: a removed account or a changed password ends it).
struct Session: Sendable, Equatable {
    let id: String
    let csrf: String
    let expires: Date
    let identity: Identity
    /// What the settings page shows and revokes it by: random, and never the cookie's id.
    var handle = RandomToken.make(bytes: 12)
    var created = Date()
    /// The address it logged in from.
    var client = ""

    /// The same session with the account as it stands now (its role may have changed).
    func with(_ identity: Identity) -> Session {
        Session(
            id: id, csrf: csrf, expires: expires, identity: identity, handle: handle, created: created, client: client)
    }

    var summary: SessionSummary {
        SessionSummary(
            handle: handle, user: identity.name, role: identity.role, client: client, createdAt: created,
            expiresAt: expires)
    }
}

/// A session as an admin sees it (`/api/sessions`, the settings page): who, from where, since when.
struct SessionSummary: Sendable, Encodable, Equatable {
    var handle: String
    var user: String
    var role: UserRole
    var client: String
    var createdAt: Date
    var expiresAt: Date
}

/// Sessions live in memory: a restart logs everyone out, and nothing secret is written to disk.
final class SessionStore: Sendable {
    static let cookieName = "appliance_session"
    static let lifetime: TimeInterval = 30 * 24 * 3600
    /// Oldest sessions are dropped past this many (a guard against a login loop filling memory).
    static let limit = 1000
    private let sessions = Locked<[String: Session]>([:])

    func create(for identity: Identity, client: String = "", now: Date = Date()) -> Session {
        let session = Session(
            id: RandomToken.make(), csrf: RandomToken.make(), expires: now.addingTimeInterval(Self.lifetime),
            identity: identity,
            created: now, client: client)
        sessions.withLock { all in
            all = all.filter { $0.value.expires > now }
            if all.count >= Self.limit, let oldest = all.min(by: { $0.value.expires < $1.value.expires }) {
                all[oldest.key] = nil
            }
            all[session.id] = session
        }
        return session
    }

    func find(_ id: String, now: Date = Date()) -> Session? {
        sessions.withLock { all in
            guard let session = all[id] else { return nil }
            if session.expires <= now {
                all[id] = nil
                return nil
            }
            return session
        }
    }

    func remove(_ id: String) { sessions.withLock { _ = $0.removeValue(forKey: id) } }

    /// The sessions still valid, newest first.
    func list(now: Date = Date()) -> [SessionSummary] {
        sessions.withLock { all in
            all.values.filter { $0.expires > now }.sorted { $0.created > $1.created }.map(\.summary)
        }
    }

    /// Ends the session with this handle; false when there is none.
    func revoke(handle: String) -> Bool {
        sessions.withLock { all in
            guard let id = all.first(where: { RandomToken.equal($0.value.handle, handle) })?.key else { return false }
            all[id] = nil
            return true
        }
    }

    /// `Set-Cookie` for a new session: HttpOnly (no script reads it), SameSite=Strict (no other site sends it), and
    /// Secure when it came over HTTPS (the browser never sends it over plain HTTP, not even to the redirect).
    static func cookie(for session: Session, secure: Bool = false) -> String {
        "\(cookieName)=\(session.id); Path=/; Max-Age=\(Int(lifetime)); HttpOnly; SameSite=Strict"
            + (secure ? "; Secure" : "")
    }

    static let clearingCookie = "\(cookieName)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict"
}
