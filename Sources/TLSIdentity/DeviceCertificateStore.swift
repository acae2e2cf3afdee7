import Crypto
import Foundation

/// The device's own certificate and key, under the data folder (`tls/device.crt`, `tls/device.key`, both 0600):
/// made at the first start, kept across restarts (a user trusts it once), made again with the same key when it
/// nears its end or no longer lists a name the device is reached by, so a public-key pin survives.
package struct DeviceCertificateStore: Sendable {
    package let folder: String
    /// Renewed when fewer days than this are left.
    package static let renewBefore: TimeInterval = 30 * 86_400

    package init(dataRoot: String) {
        folder = dataRoot + "/tls"
    }

    package var certificatePath: String { folder + "/device.crt" }
    package var keyPath: String { folder + "/device.key" }

    /// What the folder holds now, if it is a certificate and its key (nil when there is none yet).
    package func stored() throws -> ServedIdentity? {
        guard let pem = try? String(contentsOfFile: certificatePath, encoding: .utf8),
            let key = try? String(contentsOfFile: keyPath, encoding: .utf8)
        else { return nil }
        return try ServedIdentity(certificateChainPEM: pem, privateKeyPEM: key)
    }

    /// The certificate to serve for `names`: the stored one while it covers them and has more than
    /// `renewBefore` left; otherwise a new one, written before it is returned. `made` says which.
    package func current(names: CertificateNames, commonName: String, now: Date = Date()) throws -> (
        identity: ServedIdentity, made: Bool
    ) {
        let existing = try? stored()
        if let existing, existing.isSelfSigned, existing.names.covers(names),
            existing.notValidAfter.timeIntervalSince(now) > Self.renewBefore
        {
            return (existing, false)
        }
        let key =
            (try? String(contentsOfFile: keyPath, encoding: .utf8)).flatMap {
                try? P256.Signing.PrivateKey(pemRepresentation: $0)
            }
            ?? P256.Signing.PrivateKey()
        let made = try SelfSignedCertificate.make(names: names, privateKey: key, commonName: commonName, now: now)
        try PrivateFile.makeFolder(folder)
        try PrivateFile.write(made.privateKeyPEM, to: keyPath)
        try PrivateFile.write(made.certificateChainPEM, to: certificatePath)
        return (made, true)
    }
}
