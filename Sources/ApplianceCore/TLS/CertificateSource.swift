import ApplianceBase
import Foundation
import Settings
import TLSIdentity

/// Where the dashboard's certificate comes from: the user's `cert_file`/`key_file`, or else the device's own under
/// the data folder, made for the names it is reached by.
package struct CertificateSource: Sendable {
    package let web: ApplianceConfig.Web
    package let store: DeviceCertificateStore

    package init(web: ApplianceConfig.Web, dataDir: String) {
        self.web = web
        store = DeviceCertificateStore(dataRoot: dataDir)
    }

    package var isUsersOwn: Bool { !web.certFile.isEmpty }

    package struct Unusable: Error, CustomStringConvertible {
        package var description: String
    }

    /// The certificate to serve now; for the device's own, made or renewed first when it must be (`made` says so).
    package func load(now: Date = Date()) throws -> (identity: ServedIdentity, made: Bool) {
        if isUsersOwn { return (try usersOwn(), false) }
        do {
            return try store.current(names: names(), commonName: ProcessInfo.processInfo.hostName, now: now)
        } catch {
            throw Unusable(description: "the device's own certificate cannot be made under \(store.folder): \(error)")
        }
    }

    /// The user's `cert_file` and `key_file`, read and checked to belong together.
    package func usersOwn() throws -> ServedIdentity {
        let pem: String, key: String
        do {
            pem = try String(contentsOfFile: web.certFile, encoding: .utf8)
            key = try String(contentsOfFile: web.keyFile, encoding: .utf8)
        } catch {
            throw Unusable(description: "[web] cert_file \(web.certFile) or key_file \(web.keyFile) cannot be read: \(error.localizedDescription)")
        }
        do {
            return try ServedIdentity(certificateChainPEM: pem, privateKeyPEM: key)
        } catch {
            throw Unusable(description: "[web] cert_file \(web.certFile) with key_file \(web.keyFile): \(error)")
        }
    }

    /// The names the device's own certificate must list, as of now (a wildcard listen follows the addresses).
    package func names() -> CertificateNames {
        CertificateNames.forListening(on: web.hostAndPort?.host ?? "127.0.0.1", hostName: ProcessInfo.processInfo.hostName,
                                      interfaceAddresses: NetworkInterface.current().map(\.address))
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
