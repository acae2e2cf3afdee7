import Crypto
import Foundation
import SwiftASN1
import X509

/// A certificate and its private key, as the dashboard serves them: read from PEM (the device's own or a user's
/// `cert_file`/`key_file`), checked to belong together, with the facts a user and the status need.
package struct ServedIdentity: Sendable {
    /// The whole chain in PEM, leaf first (a certbot `fullchain.pem` keeps its intermediates).
    package let certificateChainPEM: String
    package let privateKeyPEM: String
    package let leaf: Certificate
    /// SHA-256 of the leaf's DER: what a user compares on the first visit.
    package let fingerprint: String
    /// Base64 SHA-256 of the leaf's public key (SPKI): the same across the device's renewals.
    package let publicKeyPin: String

    package struct Invalid: Error, CustomStringConvertible {
        package var description: String
    }

    package init(certificateChainPEM: String, privateKeyPEM: String) throws {
        let documents: [PEMDocument]
        do {
            documents = try PEMDocument.parseMultiple(pemString: certificateChainPEM).filter {
                $0.discriminator == "CERTIFICATE"
            }
        } catch {
            throw Invalid(description: "the certificate is not PEM: \(error)")
        }
        guard let first = documents.first else {
            throw Invalid(description: "no CERTIFICATE block in the certificate file")
        }
        let leaf: Certificate
        let key: Certificate.PrivateKey
        do {
            leaf = try Certificate(derEncoded: first.derBytes)
        } catch {
            throw Invalid(description: "the certificate cannot be read: \(error)")
        }
        do {
            key = try Certificate.PrivateKey(pemEncoded: privateKeyPEM)
        } catch {
            throw Invalid(description: "the private key cannot be read (PEM, EC or RSA): \(error)")
        }
        guard key.publicKey == leaf.publicKey else {
            throw Invalid(description: "the private key does not belong to the certificate")
        }
        var spki = DER.Serializer()
        try spki.serialize(leaf.publicKey)
        self.certificateChainPEM = certificateChainPEM
        self.privateKeyPEM = privateKeyPEM
        self.leaf = leaf
        fingerprint = CertificateFingerprint.sha256(der: first.derBytes)
        publicKeyPin = CertificateFingerprint.spkiSHA256Base64(spkiDER: spki.serializedBytes)
    }

    package var notValidAfter: Date { leaf.notValidAfter }

    /// The names the leaf is good for (its subject alternative names).
    package var names: CertificateNames {
        guard let san = try? leaf.extensions.subjectAlternativeNames else {
            return CertificateNames(dnsNames: [], ipAddresses: [])
        }
        var dns: [String] = []
        var ips: [String] = []
        for name in san {
            switch name {
            case .dnsName(let value): dns.append(value)
            case .ipAddress(let bytes): IPAddressBytes.text(Array(bytes.bytes)).map { ips.append($0) }
            default: break
            }
        }
        return CertificateNames(dnsNames: dns, ipAddresses: ips)
    }

    /// Issued by itself (the device's own certificate, or a user's self-signed one): browsers ask the user once.
    package var isSelfSigned: Bool { leaf.issuer == leaf.subject }
}
