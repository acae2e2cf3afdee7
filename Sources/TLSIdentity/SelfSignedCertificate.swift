import Crypto
import Foundation
import SwiftASN1
import X509

/// The certificate a device makes for itself when the user gives none: ECDSA P-256, valid for `lifetime` (397 days:
/// within what browsers accept for a server certificate), a server certificate (not a CA) for `names`.
package enum SelfSignedCertificate {
    package static let lifetime: TimeInterval = 397 * 86_400

    /// A certificate for `names`, signed by `privateKey` itself. Backdated an hour so a client whose clock is a little
    /// behind does not see it as "not yet valid".
    package static func make(
        names: CertificateNames, privateKey: P256.Signing.PrivateKey, commonName: String,
        now: Date = Date()
    ) throws -> ServedIdentity {
        let key = Certificate.PrivateKey(privateKey)
        let subject = try DistinguishedName {
            OrganizationName("appliance")
            CommonName(commonName)
        }
        var alternatives = names.dnsNames.map { GeneralName.dnsName($0) }
        alternatives += names.ipAddresses.compactMap(IPAddressBytes.parse).map {
            GeneralName.ipAddress(ASN1OctetString(contentBytes: $0[...]))
        }
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            try ExtendedKeyUsage([.serverAuth])
            SubjectAlternativeNames(alternatives)
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: key.publicKey,
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(lifetime),
            issuer: subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
            issuerPrivateKey: key)
        return try ServedIdentity(
            certificateChainPEM: certificate.serializeAsPEM().pemString,
            privateKeyPEM: privateKey.pemRepresentation)
    }
}
