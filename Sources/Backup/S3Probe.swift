import AsyncHTTPClient
import Foundation
import Settings

/// `appliance doctor`'s look at an S3 target, with the uploader's own client and credentials: the bucket (HEAD), then
/// a small object written and deleted under the prefix — what every upload needs.
package enum S3Probe {
    package enum Outcome: Sendable, Equatable {
        case ok(String)
        /// The keys were refused (wrong access key or secret, or no right to the bucket).
        case refused(String)
        case noBucket(String)
        case failed(String)
    }

    package static func run(_ config: ApplianceConfig.Backup, http: HTTPClient) async -> Outcome {
        let client: S3Client
        do {
            client = try BackupTargets.s3Client(config, http: http, secret: try BackupCredentials.secret(config))
        } catch {
            return .failed("\(error)")
        }
        let bucket = client.location.bucket
        let origin = client.location.origin
        do {
            switch try await client.headBucket() {
            case 200: break
            case 403:
                return .refused("\(origin) refused access key \(config.accessKey) for bucket \(bucket) (HTTP 403)")
            case 404: return .noBucket("bucket \(bucket) does not exist at \(origin) (HTTP 404)")
            case let status:
                return .failed("\(origin) answered HTTP \(status) for bucket \(bucket) (another region or endpoint?)")
            }
            let key = client.location.key(".appliance-doctor-\(UUID().uuidString.prefix(8).lowercased())")
            _ = try await client.putObject(key, data: Data("appliance doctor\n".utf8))
            try await client.deleteObject(key)
            return .ok(
                """
                bucket \(bucket) at \(origin) answers access key \(config.accessKey); a test object was written \
                and deleted under '\(client.location.prefix)'
                """
            )
        } catch let error where BackupPolicy.isRefusedCredentials(error) {
            return .refused("\(origin) refused a write to bucket \(bucket): \(error)")
        } catch {
            return .failed("\(error)")
        }
    }
}
