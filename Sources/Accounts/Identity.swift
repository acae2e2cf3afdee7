import ApplianceProtocol

/// Who a request is, once a door has checked the credential: an account, or the `[web] token_file` password (the
/// admin `appliance`, kept from before accounts until the config drops the file).
public struct Identity: Sendable, Equatable, Hashable {
    public let name: String
    public let role: UserRole
    /// The account's password generation when the credential was checked: a later password change ends sessions
    /// made before it.
    public let generation: Int
    /// The `[web] token_file` password rather than an account.
    public let isTokenFile: Bool

    public init(name: String, role: UserRole, generation: Int, isTokenFile: Bool = false) {
        (self.name, self.role, self.generation, self.isTokenFile) = (name, role, generation, isTokenFile)
    }
}
