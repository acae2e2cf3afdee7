import Foundation
import SystemCalls

/// A password for a service the appliance logs in to (WebDAV, MQTT): a file (its trailing newline dropped) that only
/// its owner
/// may read, or an environment variable. Never logged, never in events or status.
package enum SecretFile {
    struct SecretError: Error, CustomStringConvertible {
        package var description: String
    }

    /// `key` names the setting in errors (`backup.password_file`); nil when neither the file nor the variable is set.
    package static func read(file: String, key: String, environmentVariable: String) throws -> String? {
        guard !file.isEmpty else { return ProcessInfo.processInfo.environment[environmentVariable] }
        try checkPrivate(file: file, key: key)
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw SecretError(description: "\(key) \(file) cannot be read")
        }
        return text.trimmingCharacters(in: .newlines)
    }

    /// Refuses a secret file that its group or others may read or write (what `chmod 600` gives passes): a password
    /// others can read is no password, and saying so at start beats a leak nobody notices.
    package static func checkPrivate(file: String, key: String) throws {
        var info = stat()
        do {
            try SystemCall.run("stat") { stat(file, &info) }
        } catch {
            throw SecretError(description: "\(key) \(file): \(error.reason)")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw SecretError(
                description:
                    """
                    \(key) \(file) is readable by others (mode \(String(info.st_mode & 0o777, radix: 8))); run \
                    chmod 600 on it
                    """
            )
        }
    }
}
