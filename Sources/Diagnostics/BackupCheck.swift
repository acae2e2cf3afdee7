import ApplianceBase
import AsyncHTTPClient
import Backup
import Foundation
import Mp4
import NIOCore
import Settings

/// Check 8: the WebDAV server answers for the backup folder with the configured credentials. The password and
/// the TLS trust come from the same code the uploader uses (BackupCredentials, BackupTrust), so a pass here
/// means the uploader gets in too. Reads only: one PROPFIND, Depth 0.
enum BackupCheck {
    static let name = "backup"
    static let requestTimeout = TimeAmount.seconds(8)

    static func run(_ backup: ApplianceConfig.Backup) async -> DoctorCheck {
        guard backup.enabled else { return .pass(name, "backup off ([backup] url is empty)") }
        if backup.isS3 { return await objectStore(backup) }
        let url = BackupPolicy.redacted(backup.url)
        let password: String?
        do {
            password = try BackupCredentials.password(file: backup.passwordFile)
        } catch {
            return .fail(
                name, "\(error)",
                fix:
                    """
                    chmod 600 the password file and make it readable by the service user, or correct [backup] \
                    password_file
                    """
            )
        }
        let http: HTTPClient
        switch probeClient(backup, read: .seconds(5)) {
        case .client(let made): http = made
        case .failed(let check): return check
        }
        let client = WebDAVClient(http: http, base: backup.url, username: backup.username, password: password)
        let verdict: DoctorCheck
        do {
            verdict = judge(
                try await client.probeFolder(timeout: requestTimeout), url: url, backup: backup,
                hasPassword: password != nil)
        } catch {
            let reason = plainReason("\(error)")
            let tls = reason.hasPrefix("TLS")
            verdict = .fail(
                name, "cannot reach \(url): \(reason)",
                fix: tls
                    ? "add the server's CA to the system store or set [backup] ca_file"
                    : "check [backup] url, the network and that the server is running")
        }
        try? await http.shutdown()
        return verdict
    }

    /// An S3 bucket: HEAD on it, then a small object written and deleted (S3Probe).
    static func objectStore(_ backup: ApplianceConfig.Backup) async -> DoctorCheck {
        let http: HTTPClient
        switch probeClient(backup, read: .seconds(8)) {
        case .client(let made): http = made
        case .failed(let check): return check
        }
        let outcome = await S3Probe.run(backup, http: http)
        try? await http.shutdown()
        switch outcome {
        case .ok(let what): return .pass(name, what)
        case .refused(let what):
            return .fail(
                name, what,
                fix:
                    """
                    check [backup] access_key and secret_key_file (or APPLIANCE_BACKUP_SECRET), and the key's \
                    rights on the bucket
                    """
            )
        case .noBucket(let what):
            return .fail(name, what, fix: "create the bucket, or correct [backup] url, endpoint and region")
        case .failed(let what):
            return .fail(
                name, plainReason(what), fix: "check [backup] endpoint, the network and that the service is running")
        }
    }

    enum ProbeClient {
        case client(HTTPClient)
        case failed(DoctorCheck)
    }

    /// An HTTP client for one probe: the uploader's trust (system store plus `ca_file`), short timeouts, and no
    /// redirects (as the uploader: a redirect is reported, not followed). Shut it down after.
    static func probeClient(_ backup: ApplianceConfig.Backup, read: TimeAmount) -> ProbeClient {
        var settings: HTTPClient.Configuration
        do {
            settings = HTTPClient.Configuration(
                tlsConfiguration: try BackupTrust.tlsConfiguration(caFile: backup.caFile))
        } catch {
            return .failed(.fail(name, "\(error)", fix: "point [backup] ca_file at the server's CA certificate (PEM)"))
        }
        settings.timeout = .init(connect: .seconds(5), read: read)
        settings.redirectConfiguration = .disallow
        return .client(HTTPClient(eventLoopGroupProvider: .singleton, configuration: settings))
    }

    static func judge(
        _ answer: WebDAVClient.FolderAnswer, url: String, backup: ApplianceConfig.Backup, hasPassword: Bool
    ) -> DoctorCheck {
        let who = backup.username.isEmpty ? "without a user name" : "as \(backup.username)"
        switch answer.status {
        case 207 where answer.isCollection:
            return .pass(name, "\(url) answers \(who) (PROPFIND: HTTP 207, a folder)")
        case 207:
            return .fail(name, "\(url) is a file on the server, not a folder", fix: "set [backup] url to a folder")
        case 401, 403:
            let missing =
                hasPassword ? "" : "; no password: password_file is empty and APPLIANCE_BACKUP_PASSWORD is not set"
            return .fail(
                name, "the server refused the credentials \(who) (HTTP \(answer.status))\(missing)",
                fix: "check [backup] username and password_file (or APPLIANCE_BACKUP_PASSWORD)")
        case 404:
            // BackupUploader creates the day's folders with MKCOL before each upload, walking up to create
            // missing parents, the base folder included.
            return .warn(
                name, "\(url) does not exist yet on the server; the first upload creates it (MKCOL)",
                fix: "nothing to do if the URL is right; otherwise correct [backup] url")
        case 301, 302, 303, 307, 308:
            let target = answer.location ?? "another URL"
            return .fail(
                name, "\(url) redirects (HTTP \(answer.status)) to \(target); uploads do not follow redirects",
                fix: "set [backup] url to \(target)")
        case 405, 501:
            return .fail(
                name, "\(url) does not speak WebDAV (PROPFIND: HTTP \(answer.status))",
                fix: "use the server's WebDAV URL (Nextcloud: https://HOST/remote.php/dav/files/USER/FOLDER)")
        default:
            return .fail(
                name, "\(url) answered PROPFIND with HTTP \(answer.status)",
                fix: "check the server's log and [backup] url")
        }
    }

    /// NIO's transport errors in words: "connection reset (error set): Connection refused) (errno: 111)" →
    /// "connection refused (nothing listens there)".
    static func plainReason(_ message: String) -> String {
        let text = message.hasPrefix("network: ") ? String(message.dropFirst("network: ".count)) : message
        let lower = text.lowercased()
        if lower.contains("connection refused") { return "connection refused (nothing listens there)" }
        if lower.contains("connecttimeout") || lower.contains("deadlineexceeded") || lower.contains("readtimeout") {
            return "no answer in time (\(text))"
        }
        if lower.contains("no route to host") { return "no route to host" }
        if lower.contains("name or service not known") || lower.contains("nodename nor servname")
            || lower.contains("dns")
        {
            return "host name not found (\(text))"
        }
        return text
    }
}
