import Foundation

/// The device's password from `[web] token_file`: the file's first line, surrounding white space removed. The web
/// login and API token check against it, and RTSP's Digest authentication (user `appliance`) uses it. Read once at
/// start; a file that cannot be read, or holds too short a password, stops the start with one line.
public struct Password: Sendable {
    /// The secret itself: handed only to an authenticator (gst-rtsp-server's Digest), never logged or reported.
    public let secret: String

    /// The file's first non-blank line; the file must be its owner's alone (`SecretFile.checkPrivate`), as every other
    /// secret file is.
    public init(file: String) throws {
        do {
            try SecretFile.checkPrivate(file: file, key: "[web] token_file")
        } catch {
            throw PasswordFileError("\(error)")
        }
        let text: String
        do {
            text = try String(contentsOfFile: file, encoding: .utf8)
        } catch {
            throw PasswordFileError("[web] token_file: cannot read \(file): \((error as NSError).localizedDescription)")
        }
        let secret = text.split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard secret.count >= 8 else {
            throw PasswordFileError(
                "[web] token_file: \(file) must hold a password of at least 8 characters on its first line")
        }
        self.secret = secret
    }

    public func matches(_ candidate: String) -> Bool { RandomToken.equal(candidate, secret) }
}

/// `[web] token_file` cannot be used: stops the daemon's start, as one line.
public struct PasswordFileError: Error, CustomStringConvertible {
    public let description: String
    package init(_ description: String) { self.description = description }
}
