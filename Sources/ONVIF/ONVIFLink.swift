import ApplianceBase
import ApplianceProtocol
import Crypto
import Foundation

/// What `status.onvif` shows, kept by the discovery service, with the subscriptions the event service holds; and the
/// device's stable names (endpoint, serial number) from /etc/machine-id, hashed so the id itself is never sent.
public final class ONVIFLink: Sendable {
    package let subscriptions = PullPointSubscriptions()
    private let state: Locked<ONVIFStatus>

    package init(_ initial: ONVIFStatus) { state = Locked(initial) }

    package var status: ONVIFStatus {
        var status = state.withLock { $0 }
        status.subscriptions = subscriptions.count
        return status
    }

    package func update(_ change: (inout ONVIFStatus) -> Void) { state.withLock { change(&$0) } }

    /// The WS-Discovery endpoint, `urn:uuid:` and a name-based UUID of this machine's id.
    package static func endpoint(machineIDFile: String = "/etc/machine-id") -> String {
        let seed = (try? String(contentsOfFile: machineIDFile, encoding: .utf8))?.trimmingCharacters(
            in: .whitespacesAndNewlines)
        var bytes = Array(
            Insecure.SHA1.hash(data: Data("appliance-onvif:\(seed ?? ProcessInfo.processInfo.hostName)".utf8)).prefix(
                16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50  // version 5 (name-based, SHA-1)
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let parts = [
            hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4),
            hex.dropFirst(20),
        ]
        return "urn:uuid:" + parts.joined(separator: "-")
    }
}
