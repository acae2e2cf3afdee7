import Foundation

/// What an account may do. `admin`: everything. `viewer`: watch and read (live view, timeline, events, play and
/// download clips, snapshots); no record control, delete, lock, rename, share, settings or backup actions.
public enum UserRole: String, Codable, Sendable, CaseIterable, Comparable {
    case viewer, admin

    /// `admin` covers everything a `viewer` may do.
    public static func < (lhs: UserRole, rhs: UserRole) -> Bool { lhs == .viewer && rhs == .admin }
}

/// A password on its way to the account store: printed, logged or compared by description, it shows nothing.
public struct Secret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    public let text: String
    public init(_ text: String) { self.text = text }
    public var description: String { "<secret>" }
    public var debugDescription: String { "<secret>" }
}

/// One account as `users` lists it (never its password or tokens, which only their hashes stand for).
public struct UserAccount: Codable, Sendable, Equatable {
    public var name: String
    public var role: UserRole
    public var createdAt: Date
    public var lastLogin: Date?
    /// API tokens made for this account and not revoked.
    public var tokens: Int

    public init(name: String, role: UserRole, createdAt: Date, lastLogin: Date?, tokens: Int) {
        (self.name, self.role, self.createdAt, self.lastLogin, self.tokens) = (name, role, createdAt, lastLogin, tokens)
    }
}

/// What `users` answers: every account, by name.
public struct UserList: Codable, Sendable, Equatable {
    public var items: [UserAccount]
    /// Whether `[web] token_file`'s password is also accepted (as the admin `appliance`).
    public var tokenFile: Bool
    public init(items: [UserAccount], tokenFile: Bool) { (self.items, self.tokenFile) = (items, tokenFile) }
}

/// What `user.remove` answers.
public struct UserRemoved: Codable, Sendable, Equatable {
    public var name: String
    public var removed: Bool
    public init(name: String, removed: Bool) { (self.name, self.removed) = (name, removed) }
}

/// What `user.token` answers: a new API token, shown this once (only its hash is kept). Sent as
/// `Authorization: Bearer TOKEN`, it acts as the account.
public struct UserToken: Codable, Sendable, Equatable {
    public var name: String
    public var token: String
    public var createdAt: Date
    public init(name: String, token: String, createdAt: Date) {
        (self.name, self.token, self.createdAt) = (name, token, createdAt)
    }
}

/// `auth_failed`: a door refused a credential (a wrong password or token, an unknown name).
public struct AuthFailure: Codable, Sendable, Equatable {
    /// `web`, `rtsp` or `onvif`.
    public var door: String
    /// The peer's address.
    public var client: String
    /// The name that was tried, when the credential carried one.
    public var user: String?
    public var reason: String
    public init(door: String, client: String, user: String?, reason: String) {
        (self.door, self.client, self.user, self.reason) = (door, client, user, reason)
    }
}
