import ApplianceBase
import ApplianceProtocol

/// What a message on a command topic asks for, as the one typed `Command`; anything else is refused with the reason
/// the bridge logs (one line, and the message is dropped).
package enum MQTTCommandParser {
    /// `channels`: the channels' names with several channels (each has its own recording and snapshot topics).
    package static func command(
        topic: String, payload: [UInt8], topics: MQTTTopics, cameras: [String], channels: [String] = []
    ) -> Result<Command, MQTTCommandRefusal> {
        guard let text = String(validating: payload, as: UTF8.self)?.trimmingCharacters(in: .whitespacesAndNewlines)
        else {
            return .failure(.init("payload is not UTF-8 text"))
        }
        guard text.utf8.count <= 256 else { return .failure(.init("payload is over 256 bytes")) }
        if let (channel, rest) = topics.channelCommand(topic, channels: channels) {
            switch rest {
            case "recording/set": return recording(text, channel: channel)
            case "snapshot/set": return press(text).map { .snapshot(channel: channel) }
            default: return .failure(.init("not a command topic"))
            }
        }
        switch topic {
        case topics.recordingSet:
            return recording(text, channel: nil)
        case topics.snapshotSet:
            return press(text).map { .snapshot() }
        case topics.protectSet:
            return press(text).map {
                .protect(before: Command.defaultProtectWindow, after: Command.defaultProtectWindow)
            }
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

    /// ON, OFF or TOGGLE on a recording switch: every channel's (`channel` nil) or one channel's.
    private static func recording(_ text: String, channel: String?) -> Result<Command, MQTTCommandRefusal> {
        switch text.uppercased() {
        case "ON", "START": return .success(.recordStart(title: nil, channel: channel))
        case "OFF", "STOP": return .success(.recordStop(title: nil, channel: channel))
        case "TOGGLE": return .success(.recordToggle(title: nil, channel: channel))
        default: return .failure(.init("expected ON, OFF or TOGGLE, found '\(shown(text))'"))
        }
    }

    /// A button's press: PRESS or nothing.
    private static func press(_ text: String) -> Result<Void, MQTTCommandRefusal> {
        text.isEmpty || text.uppercased() == "PRESS"
            ? .success(()) : .failure(.init("expected PRESS, found '\(shown(text))'"))
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
