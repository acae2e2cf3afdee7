import Crypto
import Foundation

/// The SHA-256 of a certificate's DER bytes as browsers show it ("Certificate Viewer" → Fingerprints) and as
/// `openssl x509 -fingerprint -sha256` prints it: upper-case hex pairs joined by colons. A user compares it on the
/// first
/// visit, before trusting a certificate the device made itself.
package enum CertificateFingerprint {
    package static func sha256(der: some DataProtocol) -> String {
        SHA256.hash(data: der).map { hexPair($0) }.joined(separator: ":")
    }

    /// The base64 SHA-256 of the public key's SubjectPublicKeyInfo: what Chromium's
    /// `--ignore-certificate-errors-spki-list` and HTTP public-key pins take. It stays the same across renewals.
    package static func spkiSHA256Base64(spkiDER: some DataProtocol) -> String {
        Data(SHA256.hash(data: spkiDER)).base64EncodedString()
    }

    private static func hexPair(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
