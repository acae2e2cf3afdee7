import Foundation

/// What names this device to a broker and to Home Assistant when `[mqtt]` does not: an id derived from
/// /etc/machine-id (hashed with the program's name, as systemd asks of applications, so the machine id itself is
/// never published), and the host name.
package struct DeviceIdentity: Sendable, Equatable {
    /// Eight hex digits, stable for this machine.
    package var id: String
    package var hostName: String

    package static func current(machineIDFile: String = "/etc/machine-id") -> DeviceIdentity {
        let host = ProcessInfo.processInfo.hostName
        let machine = (try? String(contentsOfFile: machineIDFile, encoding: .utf8))?.trimmingCharacters(
            in: .whitespacesAndNewlines)
        return DeviceIdentity(
            id: Self.hash("appliance:" + ((machine?.isEmpty == false ? machine : nil) ?? host)), hostName: host)
    }

    /// FNV-1a, 32 bits, as eight hex digits.
    package static func hash(_ text: String) -> String {
        var h: UInt32 = 0x811c_9dc5
        for byte in text.utf8 {
            h ^= UInt32(byte)
            h = h &* 0x0100_0193
        }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }
}
