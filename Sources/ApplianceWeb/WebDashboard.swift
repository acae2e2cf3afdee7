import FrontEndInterface
import TLSIdentity

/// The web dashboard as a front end of the appliance (`Appliance.start(frontEnds:)`).
public enum WebDashboard {
    /// Builds the web service from the appliance's context, with its certificate's watcher when it serves HTTPS;
    /// none when `[web] listen = "off"`.
    public static let frontEnd: FrontEnd = { context in
        guard context.config.web.enabled else { return [] }
        guard context.config.web.servesTLS else {
            if context.config.web.isPlainOnNetwork {
                context.logger.warning(
                    """
                    [web] tls = \"off\" on \(context.config.web.listen): passwords, cookies and every clip cross \
                    the network unencrypted; anyone on it can read them
                    """
                )
            }
            return [try WebService(context: context, certificate: nil)]
        }
        let certificate = ServedCertificate(
            source: CertificateSource(config: context.config), reporter: context.reporter)
        return [
            try WebService(context: context, certificate: certificate),
            CertificateWatcher(certificate: certificate, logger: context.logger),
        ]
    }
}
