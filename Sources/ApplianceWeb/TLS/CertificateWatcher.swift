import ApplianceBase
import AsyncAlgorithms
import Foundation
import FrontEndInterface
import Logging
import ServiceLifecycle
import TLSIdentity

/// Keeps the served certificate current without a restart: a user's files are read again when they change (a
/// certbot renewal), the device's own is renewed a month before it ends or when it no longer lists an address the
/// device has. A file that cannot be used is logged and the old certificate kept. Until the first load succeeds the
/// web service itself retries it.
final class CertificateWatcher: Service, CustomStringConvertible {
    var description: String { "CertificateWatcher" }
    static let pollInterval = Duration.seconds(5)
    /// How often the device's own certificate is checked against this machine's addresses.
    static let namesInterval: TimeInterval = 60
    let certificate: ServedCertificate
    let logger: Logger

    init(certificate: ServedCertificate, logger: Logger) {
        (self.certificate, self.logger) = (certificate, logger)
    }

    var source: CertificateSource { certificate.source }

    func run() async throws {
        var stamp = source.fileStamp()
        var namesChecked = Date()
        for await _ in AsyncTimerSequence(interval: Self.pollInterval, clock: .continuous).cancelOnGracefulShutdown() {
            guard let served = certificate.identity else { continue }
            if source.isUsersOwn {
                let now = source.fileStamp()
                guard now != stamp else { continue }
                stamp = now
                reload(reason: "its files changed")
            } else if served.notValidAfter.timeIntervalSinceNow < DeviceCertificateStore.renewBefore {
                reload(reason: "it ends within \(Int(DeviceCertificateStore.renewBefore / 86_400)) days")
            } else if Date().timeIntervalSince(namesChecked) > Self.namesInterval {
                namesChecked = Date()
                if !served.names.covers(source.names()) { reload(reason: "an address it lacks appeared") }
            }
        }
    }

    private func reload(reason: String) {
        do {
            let identity = try certificate.load().identity
            logger.notice("web certificate replaced (\(reason)); SHA-256 fingerprint \(identity.fingerprint)")
        } catch {
            logger.error("web certificate not replaced (\(reason)): \(error); the previous one is still served")
        }
    }
}
