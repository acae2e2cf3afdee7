import NIOSSL

/// Which servers HTTPS uploads trust: the system's CA store (NIOSSL's default: /etc/ssl/certs/ca-certificates.crt
/// on Debian), plus the certificates of `backup.ca_file` when set — a self-hosted Nextcloud with its own CA. Peer
/// verification is never turned off.
package enum BackupTrust {
    struct TrustError: Error, CustomStringConvertible {
        package var description: String
    }

    package static func tlsConfiguration(caFile: String) throws -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        guard !caFile.isEmpty else { return tls }
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(caFile)
        } catch {
            throw TrustError(description: "backup.ca_file \(caFile): not a readable PEM certificate file (\(error))")
        }
        guard !certificates.isEmpty else {
            throw TrustError(description: "backup.ca_file \(caFile) holds no certificate")
        }
        tls.additionalTrustRoots = [.certificates(certificates)]
        return tls
    }

    /// A one-line reason for a TLS failure, or nil when `error` is not one.
    static func explain(_ error: any Error) -> String? {
        let text = "\(error)"
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            return
                """
                TLS: the server's certificate is not trusted (CERTIFICATE_VERIFY_FAILED); add its CA to the system \
                store or set backup.ca_file
                """
        }
        if error is NIOSSLError || error is BoringSSLError || text.contains("SSL routines") {
            return "TLS: \(text)"
        }
        return nil
    }
}
