/// The WebDAV password: from `password_file` (refused when other users can read it) or from the environment
/// variable APPLIANCE_BACKUP_PASSWORD. Never logged, never in events or status.
enum BackupCredentials {
    static let environmentVariable = "APPLIANCE_BACKUP_PASSWORD"

    static func password(file: String) throws -> String? {
        try SecretFile.read(file: file, key: "backup.password_file", environmentVariable: environmentVariable)
    }
}
