import ApplianceBase
import Foundation
import Settings

/// Where the certificate the dashboard (and RTSP over TLS) serves comes from: the user's `cert_file`/`key_file`, or
/// else the device's own under the data folder, made for the names it is reached by.
package struct CertificateSource: Sendable {
    package let web: ApplianceConfig.Web
    /// `[rtsp] listen` when RTSP speaks TLS: its address is named in the device's own certificate too.
    package let rtspListen: String?
    package let store: DeviceCertificateStore
    /// The web server and the RTSP server load at the same start: one makes the device's certificate, the other
    /// then finds it (two makers would each write their own).
    private static let making = NSLock()

    package init(config: ApplianceConfig) {
        web = config.web
        rtspListen = config.rtsp.enabled && config.rtsp.tls ? config.rtsp.listen : nil
        store = DeviceCertificateStore(dataRoot: config.dataDir)
    }

    package var isUsersOwn: Bool { !web.certFile.isEmpty }

    package struct Unusable: Error, CustomStringConvertible {
        package var description: String
    }

    /// The certificate to serve now; for the device's own, made or renewed first when it must be (`made` says so).
    package func load(now: Date = Date()) throws -> (identity: ServedIdentity, made: Bool) {
        if isUsersOwn { return (try usersOwn(), false) }
        do {
            Self.making.lock()
            defer { Self.making.unlock() }
            return try store.current(names: names(), commonName: ProcessInfo.processInfo.hostName, now: now)
        } catch {
            throw Unusable(description: "the device's own certificate cannot be made under \(store.folder): \(error)")
        }
    }

    /// The user's `cert_file` and `key_file`, read and checked to belong together.
    package func usersOwn() throws -> ServedIdentity {
        let pem: String
        let key: String
        do {
            pem = try String(contentsOfFile: web.certFile, encoding: .utf8)
            key = try String(contentsOfFile: web.keyFile, encoding: .utf8)
        } catch {
            throw Unusable(
                description:
                    """
                    [web] cert_file \(web.certFile) or key_file \(web.keyFile) cannot be read: \
                    \(error.localizedDescription)
                    """
            )
        }
        do {
            return try ServedIdentity(certificateChainPEM: pem, privateKeyPEM: key)
        } catch {
            throw Unusable(description: "[web] cert_file \(web.certFile) with key_file \(web.keyFile): \(error)")
        }
    }

    /// The names the device's own certificate must list, as of now (a wildcard listen follows the addresses): those
    /// of the web server's address and, with RTSP over TLS, of RTSP's.
    package func names() -> CertificateNames {
        let hostName = ProcessInfo.processInfo.hostName
        let addresses = NetworkInterface.current().map(\.address)
        let hosts =
            [web.hostAndPort?.host ?? "127.0.0.1"]
            + (rtspListen.flatMap { ListenAddress.parse($0)?.host }.map { [$0] } ?? [])
        let each = hosts.map {
            CertificateNames.forListening(on: $0, hostName: hostName, interfaceAddresses: addresses)
        }
        return CertificateNames(dnsNames: each.flatMap(\.dnsNames), ipAddresses: each.flatMap(\.ipAddresses))
    }

    /// Changes when the user's files do (their modification times, sizes and inodes: certbot replaces by rename);
    /// nil for the device's own.
    package func fileStamp() -> String? {
        guard isUsersOwn else { return nil }
        return [web.certFile, web.keyFile].map { path in
            var info = stat()
            guard stat(path, &info) == 0 else { return "missing" }
            return "\(info.st_ino)-\(info.st_size)-\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        }.joined(separator: "|")
    }
}
