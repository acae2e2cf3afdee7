import Foundation
import Settings

/// Where a backup's objects live in an S3 bucket: the service's origin, the bucket in the host name
/// (virtual-hosted style, AWS's default) or in the path (MinIO, Garage, most self-hosted stores), and the prefix
/// every key starts with.
struct S3Location: Sendable, Equatable {
    /// `https://s3.eu-west-1.amazonaws.com` or `https://BUCKET.s3.eu-west-1.amazonaws.com`: what requests go to.
    var origin: String
    /// The Host header (signed): the origin's host, with its port unless the scheme's own.
    var host: String
    var bucket: String
    /// Without slashes at either end; "" for none.
    var prefix: String
    var pathStyle: Bool

    /// From `[backup] url = "s3://BUCKET/PREFIX"` and its endpoint; `{device}` in the prefix is `device`.
    init(config: ApplianceConfig.Backup, device: String) throws {
        guard let url = URLComponents(string: config.url), url.scheme == "s3", let bucket = url.host, !bucket.isEmpty
        else {
            throw BackupSetupError(description: "backup.url must be s3://BUCKET/PREFIX, found '\(config.url)'")
        }
        self.bucket = bucket
        prefix = url.path.replacingOccurrences(of: "{device}", with: device)
            .trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let endpoint = config.endpoint.isEmpty ? "https://s3.\(config.region).amazonaws.com" : config.endpoint
        guard let service = URLComponents(string: endpoint), let scheme = service.scheme, let serviceHost = service.host
        else {
            throw BackupSetupError(
                description: "backup.endpoint must be an http:// or https:// URL, found '\(endpoint)'")
        }
        switch config.pathStyle {
        case "on": pathStyle = true
        case "off": pathStyle = false
        // A bucket with dots cannot be a host name under a wildcard certificate: AWS says path style for those.
        default: pathStyle = !config.endpoint.isEmpty || bucket.contains(".")
        }
        let defaultPort = scheme == "https" ? 443 : 80
        let port = service.port.flatMap { $0 == defaultPort ? nil : ":\($0)" } ?? ""
        host = (pathStyle ? serviceHost : "\(bucket).\(serviceHost)") + port
        origin = "\(scheme)://\(host)"
    }

    /// The object key of a layout path.
    func key(_ path: String) -> String { prefix.isEmpty ? path : "\(prefix)/\(path)" }

    /// The path to sign for `key` ("" : the bucket itself).
    func requestPath(key: String) -> String {
        guard pathStyle else { return "/\(key)" }
        return key.isEmpty ? "/\(bucket)" : "/\(bucket)/\(key)"
    }

    /// This machine's name for `{device}`: the host name before its first dot, letters, digits, '-' and '_' only.
    static var deviceName: String {
        let short = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "device"
        let kept = String(
            short.unicodeScalars.filter {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_")
            })
        return kept.isEmpty ? "device" : kept
    }
}
