import ApplianceBase
import FrontEndInterface
import NIOSSL
import TLSIdentity

/// The TLS settings the dashboard serves with: TLS 1.2 and 1.3 only, the certificate chain and its key. TLS 1.3's
/// suites are all AEAD with forward secrecy; for TLS 1.2 one suite per key type (ECDHE with AES-128-GCM, which every
/// TLS 1.2 client has): NIOSSL cannot set BoringSSL's server-preference option, and with one usable suite the client's
/// order cannot choose a weaker one (testssl.sh rates "no server cipher order" HIGH otherwise).
enum DashboardTLS {
    static let cipherSuites = "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256"

    static func configuration(for identity: ServedIdentity) throws -> TLSConfiguration {
        let chain = try NIOSSLCertificate.fromPEMBytes(Array(identity.certificateChainPEM.utf8)).map {
            NIOSSLCertificateSource.certificate($0)
        }
        let key = try NIOSSLPrivateKey(bytes: Array(identity.privateKeyPEM.utf8), format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        configuration.cipherSuites = cipherSuites
        return configuration
    }
}

/// The certificate served now, from its source, swapped whole when a user's files change or the device renews its
/// own: each new connection takes the context current at its first byte; connections already open keep theirs.
/// Empty until the first load succeeds (the web service retries it as it retries binding its address).
final class ServedCertificate: Sendable {
    let source: CertificateSource
    /// Where status shows the served certificate's fingerprint and end: updated by every load, whoever asked for it.
    let reporter: FrontEndReporter
    private let state = Locked<(context: NIOSSLContext, identity: ServedIdentity)?>(nil)

    init(source: CertificateSource, reporter: FrontEndReporter) {
        (self.source, self.reporter) = (source, reporter)
    }

    var context: NIOSSLContext? { state.withLock { $0?.context } }
    var identity: ServedIdentity? { state.withLock { $0?.identity } }

    /// Reads (or makes) the certificate and serves it from now on; `made` when the device made its own just now.
    @discardableResult
    func load() throws -> (identity: ServedIdentity, made: Bool) {
        let loaded = try source.load()
        let context = try NIOSSLContext(configuration: DashboardTLS.configuration(for: loaded.identity))
        state.withLock { $0 = (context, loaded.identity) }
        let identity = loaded.identity
        reporter.update {
            $0.fingerprint = identity.fingerprint
            $0.certificateExpires = identity.notValidAfter
        }
        return loaded
    }
}
