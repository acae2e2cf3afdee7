import AsyncHTTPClient
import Settings
import SigV4

/// Makes the configured target: an S3 bucket for an `s3://` url, else a WebDAV folder.
enum BackupTargets {
    static func make(_ config: ApplianceConfig.Backup, http: HTTPClient, secret: String?) throws -> any BackupTarget {
        guard config.isS3 else {
            return WebDAVTarget(
                client: WebDAVClient(http: http, base: config.url, username: config.username, password: secret))
        }
        return S3Target(
            client: try s3Client(config, http: http, secret: secret), partSize: Int64(config.partSizeMb) << 20,
            checksETags: config.serverSideEncryption != "aws:kms")
    }

    /// The S3 client of `config` (for the uploader and `appliance doctor`).
    static func s3Client(_ config: ApplianceConfig.Backup, http: HTTPClient, secret: String?) throws -> S3Client {
        guard let secret, !secret.isEmpty else {
            throw BackupSetupError(
                description: "no S3 secret key: set backup.secret_key_file (chmod 600) or APPLIANCE_BACKUP_SECRET")
        }
        var headers: [(name: String, value: String)] = []
        if !config.storageClass.isEmpty { headers.append(("x-amz-storage-class", config.storageClass)) }
        if !config.serverSideEncryption.isEmpty {
            headers.append(("x-amz-server-side-encryption", config.serverSideEncryption))
        }
        return S3Client(
            http: http, location: try S3Location(config: config, device: S3Location.deviceName),
            signer: SigV4Signer(
                credentials: SigV4Credentials(accessKey: config.accessKey, secretKey: secret), region: config.region),
            objectHeaders: headers)
    }
}

/// A backup setting that cannot work: one line, at start.
struct BackupSetupError: Error, CustomStringConvertible {
    var description: String
}
