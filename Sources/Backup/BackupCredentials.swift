import ApplianceBase
import Settings

/// The backup's secret: the WebDAV password (`password_file` or APPLIANCE_BACKUP_PASSWORD) or the S3 secret key
/// (`secret_key_file` or APPLIANCE_BACKUP_SECRET), from a file only its owner may read or the environment. Never
/// logged, never in events or status.
package enum BackupCredentials {
    package static let environmentVariable = "APPLIANCE_BACKUP_PASSWORD"
    package static let secretEnvironmentVariable = "APPLIANCE_BACKUP_SECRET"

    package static func password(file: String) throws -> String? {
        try SecretFile.read(file: file, key: "backup.password_file", environmentVariable: environmentVariable)
    }

    /// The secret the configured target needs (nil: none set).
    package static func secret(_ config: ApplianceConfig.Backup) throws -> String? {
        guard config.isS3 else { return try password(file: config.passwordFile) }
        return try SecretFile.read(
            file: config.secretKeyFile, key: "backup.secret_key_file", environmentVariable: secretEnvironmentVariable)
    }

    /// The file the secret comes from ("" : the environment).
    package static func file(_ config: ApplianceConfig.Backup) -> String {
        config.isS3 ? config.secretKeyFile : config.passwordFile
    }
}
