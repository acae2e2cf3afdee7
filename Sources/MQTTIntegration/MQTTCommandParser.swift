import ApplianceBase
import ApplianceProtocol

/// What a message on a command topic asks for, as the one typed `Command`; anything else is refused with the reason
/// the bridge logs (one line, and the message is dropped).
package enum MQTTCommandParser {
    package static func command(topic: String, payload: [UInt8], topics: MQTTTopics, cameras: [String]) -> Result<
        Command, MQTTCommandRefusal
    > {
        guard let text = String(validating: payload, as: UTF8.self)?.trimmingCharacters(in: .whitespacesAndNewlines)
        else {
            return .failure(.init("payload is not UTF-8 text"))
        }
        guard text.utf8.count <= 256 else { return .failure(.init("payload is over 256 bytes")) }
        switch topic {
        case topics.recordingSet:
            switch text.uppercased() {
            case "ON", "START": return .success(.recordStart(title: nil))
            case "OFF", "STOP": return .success(.recordStop(title: nil))
            case "TOGGLE": return .success(.recordToggle(title: nil))
            default: return .failure(.init("expected ON, OFF or TOGGLE, found '\(shown(text))'"))
            }
        case topics.snapshotSet:
            guard text.isEmpty || text.uppercased() == "PRESS" else {
                return .failure(.init("expected PRESS, found '\(shown(text))'"))
            }
            return .success(.snapshot())
        case topics.protectSet:
            guard text.isEmpty || text.uppercased() == "PRESS" else {
                return .failure(.init("expected PRESS, found '\(shown(text))'"))
            }
            return .success(.protect(before: Command.defaultProtectWindow, after: Command.defaultProtectWindow))
        case topics.cameraSet:
            if cameras.contains(text) { return .success(.switchCamera(.named(text))) }
            if text.lowercased() == "next" { return .success(.switchCamera(.next(channel: nil))) }
            return .failure(.init("no camera named '\(shown(text))' (cameras: \(cameras.joined(separator: ", ")))"))
        case topics.chimeSet:
            if text.isEmpty || text.uppercased() == "PRESS" { return .success(.play(PlayRequest(chime: .chime))) }
            guard let chime = SpeakerChime(rawValue: text.lowercased()) else {
                return .failure(
                    .init(
                        """
                        no chime named '\(shown(text))' (chimes: \
                        \(SpeakerChime.allCases.map(\.rawValue).joined(separator: ", ")))
                        """
                    ))
            }
            return .success(.play(PlayRequest(chime: chime)))
        default:
            return .failure(.init("not a command topic"))
        }
    }

    /// The payload as a log line may show it: printable, at most 40 characters.
    private static func shown(_ text: String) -> String {
        let printable = String(
            text.unicodeScalars.map {
                $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7f ? " " : Character($0)
            })
        return printable.count > 40 ? String(printable.prefix(40)) + "…" : printable
    }
}

package struct MQTTCommandRefusal: Error, Equatable, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
