import ApplianceBase
/// The WebDAV password: from `password_file` (refused when other users can read it) or from the environment
/// variable APPLIANCE_BACKUP_PASSWORD. Never logged, never in events or status.
package enum BackupCredentials {
    package static let environmentVariable = "APPLIANCE_BACKUP_PASSWORD"

    package static func password(file: String) throws -> String? {
        try SecretFile.read(file: file, key: "backup.password_file", environmentVariable: environmentVariable)
    }
}
