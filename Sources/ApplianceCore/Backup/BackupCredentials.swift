import Foundation
import SystemCalls

/// The WebDAV password: from `password_file` (refused when other users can read it) or from the environment
/// variable APPLIANCE_BACKUP_PASSWORD. Never logged, never in events or status.
enum BackupCredentials {
    static let environmentVariable = "APPLIANCE_BACKUP_PASSWORD"

    struct CredentialError: Error, CustomStringConvertible {
        var description: String
    }

    static func password(file: String) throws -> String? {
        if !file.isEmpty {
            var info = stat()
            do {
                try SystemCall.run("stat") { stat(file, &info) }
            } catch {
                throw CredentialError(description: "backup.password_file \(file): \(error.reason)")
            }
            guard info.st_mode & 0o077 == 0 else {
                throw CredentialError(description: "backup.password_file \(file) is readable by others (mode \(String(info.st_mode & 0o777, radix: 8))); run chmod 600 on it")
            }
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw CredentialError(description: "backup.password_file \(file) cannot be read")
            }
            return text.trimmingCharacters(in: .newlines)
        }
        return ProcessInfo.processInfo.environment[environmentVariable]
    }
}
