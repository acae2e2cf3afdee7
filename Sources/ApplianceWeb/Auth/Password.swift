import ApplianceCore
import Foundation

/// The password (also the API's bearer token) from `[web] token_file`: the file's first line, surrounding white
/// space removed. Read once at start; a file that cannot be read, or is empty, stops the start with one line.
struct Password: Sendable {
    private let secret: String

    init(file: String) throws {
        let text: String
        do {
            text = try String(contentsOfFile: file, encoding: .utf8)
        } catch {
            throw WebStartupError("[web] token_file: cannot read \(file): \((error as NSError).localizedDescription)")
        }
        let secret = text.split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard secret.count >= 8 else { throw WebStartupError("[web] token_file: \(file) must hold a password of at least 8 characters on its first line") }
        self.secret = secret
    }

    func matches(_ candidate: String) -> Bool { RandomToken.equal(candidate, secret) }
}

/// A web setting that stops the daemon's start, as one line.
struct WebStartupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
