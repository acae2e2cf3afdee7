import ApplianceBase
import ApplianceProtocol
import Foundation
import MediaLibrary

/// The accounts: the account commands, and the checks every door (the web, RTSP, ONVIF) makes of a credential.
/// Rows live in the Library; a roster of names, roles and password generations lives here too, so that a session's
/// check on each request reads memory, not the database. Every change goes through here, so the roster follows.
public final class AccountBook: Sendable {
    struct Entry: Sendable, Equatable {
        var role: UserRole
        var generation: Int
    }

    let library: Library
    /// `[web] token_file`'s password: the admin `appliance` while the config names the file.
    let tokenFile: Password?
    let cost: UInt8
    let roster: Locked<[String: Entry]>
    /// Credentials checked recently (HTTP Basic, API tokens), by a hash of what was sent: a client that sends its
    /// password with every request pays bcrypt once every few minutes, not on each request.
    let recent = RecentChecks()
    /// A bcrypt hash of nothing anyone knows, checked against when the name is unknown.
    let decoy = Locked<String?>(nil)
    /// Told after every change (RTSP's server takes the Digest entries again).
    let observers = Locked<[@Sendable () -> Void]>([])
    /// Failed credentials at every door, counted in one place (`GuessLedger`).
    public let guesses = GuessLedger()
    /// Whether RTSP is on, so that accounts keep a Digest HA1 (an MD5 of the password that opens RTSP: fast to attack,
    /// so kept only where it is needed). Off, none is stored and those stored are forgotten at start; on, an account
    /// gets one when its password is set or next used (the login page, Basic, ONVIF's PasswordText).
    let keepsDigest: Bool

    package init(
        library: Library, tokenFile: Password?, keepsDigest: Bool = true, cost: UInt8 = PasswordHashing.defaultCost
    ) throws {
        (self.library, self.tokenFile, self.keepsDigest, self.cost) = (library, tokenFile, keepsDigest, cost)
        if !keepsDigest { try library.clearDigests() }
        let users = try library.usersNow()
        roster = Locked(
            Dictionary(uniqueKeysWithValues: users.map { ($0.name, Entry(role: $0.role, generation: $0.generation)) }))
    }

    /// Whether any account exists (with none and no token_file, the dashboard is for this machine only).
    public var hasAccounts: Bool { roster.withLock { !$0.isEmpty } }

    /// Whether `[web] token_file`'s password is accepted.
    public var hasTokenFile: Bool { tokenFile != nil }

    /// The identity as it stands now: nil once the account is gone or its password changed since it was checked.
    public func current(_ identity: Identity) -> Identity? {
        if identity.isTokenFile { return tokenFile == nil ? nil : identity }
        guard let entry = roster.withLock({ $0[identity.name] }), entry.generation == identity.generation else {
            return nil
        }
        return Identity(name: identity.name, role: entry.role, generation: entry.generation)
    }

    /// `handler` runs after every change of the accounts, on the changing task: it must return at once.
    public func onChange(_ handler: @escaping @Sendable () -> Void) { observers.withLock { $0.append(handler) } }

    /// Every account's Digest entry, `name:appliance:HA1` (htdigest's format), for RTSP: never a password; admins
    /// (who may talk over the ONVIF backchannel) apart from the others. An account without an HA1 yet is left out.
    public func digestEntries() async throws -> (talkers: [String], viewers: [String]) {
        let users = try await library.users().filter { !$0.digestHA1.isEmpty }
        let line = { (user: StoredUser) in "\(user.name):\(PasswordHashing.realm):\(user.digestHA1)" }
        return (users.filter { $0.role == .admin }.map(line), users.filter { $0.role != .admin }.map(line))
    }

    func changed() { for observer in observers.withLock({ $0 }) { observer() } }

    /// The HA1 to store for a password: none while RTSP is off.
    func digest(name: String, password: String) -> String {
        keepsDigest ? PasswordHashing.digestHA1(name: name, password: password) : ""
    }

    // MARK: commands

    package func list() async throws -> UserList {
        UserList(items: try await library.users().map(\.account), tokenFile: tokenFile != nil)
    }

    package func add(name: String, role: UserRole, password: Secret, now: Date = Date()) async throws -> UserAccount {
        try AccountRules.check(name: name)
        try AccountRules.check(password: password)
        let hash = try await PasswordHashing.hash(password.text, cost: cost)
        let ha1 = digest(name: name, password: password.text)
        guard try await library.insertUser(name: name, role: role, passwordHash: hash, digestHA1: ha1, at: now) else {
            throw ApplianceError(.conflict, "user \"\(name)\" exists already (user.passwd changes a password)")
        }
        roster.withLock { $0[name] = Entry(role: role, generation: 0) }
        changed()
        return try await account(name)
    }

    package func setPassword(name: String, password: Secret) async throws -> UserAccount {
        try AccountRules.check(password: password)
        _ = try await account(name)
        let hash = try await PasswordHashing.hash(password.text, cost: cost)
        guard
            try await library.updatePassword(
                name: name, passwordHash: hash, digestHA1: digest(name: name, password: password.text))
        else {
            throw Self.noSuchUser(name)
        }
        let updated = try await account(name: name)
        roster.withLock { $0[name] = Entry(role: updated.role, generation: updated.generation) }
        recent.forget(name: name)
        changed()
        return updated.account
    }

    package func setRole(name: String, role: UserRole) async throws -> UserAccount {
        let before = try await account(name: name)
        if before.role == .admin && role != .admin { try requireAnotherAdmin(than: name, doing: "make it a viewer") }
        guard try await library.updateRole(name: name, role: role) else { throw Self.noSuchUser(name) }
        roster.withLock { $0[name]?.role = role }
        recent.forget(name: name)
        changed()
        return try await account(name)
    }

    package func remove(name: String) async throws -> UserRemoved {
        guard let user = try await library.user(name: name) else { throw Self.noSuchUser(name) }
        if user.role == .admin { try requireAnotherAdmin(than: name, doing: "remove it") }
        let removed = try await library.deleteUser(name: name)
        roster.withLock { _ = $0.removeValue(forKey: name) }
        recent.forget(name: name)
        changed()
        return UserRemoved(name: name, removed: removed)
    }

    package func makeToken(name: String, now: Date = Date()) async throws -> UserToken {
        _ = try await account(name)
        let token = "apl_" + RandomToken.make()
        try await library.insertToken(name: name, tokenHash: PasswordHashing.tokenHash(token), at: now)
        return UserToken(name: name, token: token, createdAt: now)
    }

    package func revokeTokens(name: String) async throws -> UserAccount {
        _ = try await account(name)
        try await library.deleteTokens(name: name)
        recent.forget(name: name)
        return try await account(name)
    }

    /// No device is left without an admin: the last one (with no token_file beside it) cannot be removed or demoted.
    private func requireAnotherAdmin(than name: String, doing what: String) throws(ApplianceError) {
        let others = roster.withLock { $0.filter { $0.key != name && $0.value.role == .admin }.count }
        guard others > 0 || tokenFile != nil else {
            throw ApplianceError(.conflict, "\"\(name)\" is the last admin: add another admin before you \(what)")
        }
    }

    private func account(_ name: String) async throws -> UserAccount { try await account(name: name).account }

    private func account(name: String) async throws -> StoredUser {
        guard let user = try await library.user(name: name) else { throw Self.noSuchUser(name) }
        return user
    }

    static func noSuchUser(_ name: String) -> ApplianceError {
        ApplianceError(.notFound, "no user \"\(name.prefix(40))\"")
    }
}
