import Foundation
import Settings
import TLSIdentity

/// Doctor's check of what the dashboard serves: plain HTTP where only this machine reaches it, a warning for plain
/// HTTP on the network, and for HTTPS the certificate's fingerprint and end date (a user's own read and checked
/// against its key; the device's own as stored, or made at the daemon's first start).
enum WebCertificateCheck {
    static let name = "web certificate"

    static func run(_ config: ApplianceConfig, now: Date = Date()) -> DoctorCheck {
        let web = config.web
        guard web.enabled else { return .pass(name, "the dashboard is off ([web] listen = \"off\")") }
        guard web.servesTLS else {
            return web.isPlainOnNetwork
                ? .warn(
                    name, "plain HTTP on \(web.listen): passwords, cookies and clips cross the network unencrypted",
                    fix:
                        """
                        set [web] tls = \"auto\" (HTTPS with the device's own certificate) or give cert_file and \
                        key_file
                        """
                )
                : .pass(name, "plain HTTP on \(web.listen), reachable from this machine only")
        }
        let source = CertificateSource(config: config)
        let identity: ServedIdentity
        do {
            if source.isUsersOwn {
                identity = try source.usersOwn()
            } else if let stored = try source.store.stored() {
                identity = stored
            } else {
                return .pass(
                    name, "HTTPS; the device makes its own certificate at its first start (\(source.store.folder))")
            }
        } catch {
            return .fail(
                name, "\(error)",
                fix: source.isUsersOwn
                    ? "point cert_file and key_file at a PEM certificate and its key"
                    : "remove \(source.store.folder); the daemon makes a new one")
        }
        let whose = source.isUsersOwn ? "your certificate \(web.certFile)" : "the device's own certificate"
        let facts =
            """
            HTTPS with \(whose), SHA-256 \(identity.fingerprint), valid until \
            \(ClockCheck.format(identity.notValidAfter))
            """
        if identity.notValidAfter < now {
            return .fail(
                name, facts + ": it has ended",
                fix: source.isUsersOwn ? "renew it (certbot renew)" : "restart the daemon; it makes a new one")
        }
        if identity.notValidAfter.timeIntervalSince(now) < DeviceCertificateStore.renewBefore, source.isUsersOwn {
            return .warn(
                name, facts + ": it ends within 30 days",
                fix: "renew it (certbot renew); the daemon reads the new files by itself")
        }
        return .pass(name, facts)
    }
}
