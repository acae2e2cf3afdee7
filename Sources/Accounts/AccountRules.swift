import ApplianceProtocol

/// What a name and a password must be: checked before anything is hashed or stored, each failure one line.
public enum AccountRules {
    /// The name the `[web] token_file` password goes by (and RTSP's and ONVIF's before accounts): reserved.
    public static let tokenFileName = "appliance"
    /// bcrypt reads at most 72 bytes: a longer password would be cut without a word.
    static let passwordBytes = 8...72

    static func check(name: String) throws(ApplianceError) {
        let allowed = name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0)
        }
        guard (1...32).contains(name.count), allowed, let first = name.unicodeScalars.first,
            !"._-".unicodeScalars.contains(first)
        else {
            throw ApplianceError(
                .badRequest,
                """
                a user name is 1 to 32 of a-z, 0-9, '.', '_', '-', starting with a letter or digit; found \
                \"\(name.prefix(40))\"
                """
            )
        }
        guard name != tokenFileName else {
            throw ApplianceError(
                .badRequest, "\"\(tokenFileName)\" is the [web] token_file password's name: choose another")
        }
    }

    static func check(password: Secret) throws(ApplianceError) {
        guard passwordBytes.contains(password.text.utf8.count) else {
            throw ApplianceError(.badRequest, "a password is 8 to 72 bytes long (found \(password.text.utf8.count))")
        }
        guard !password.text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ApplianceError(.badRequest, "a password cannot hold control characters (a newline, a tab)")
        }
    }
}
