import ApplianceProtocol

/// Whose picture a set of detectors watches and whose recordings its trigger starts: a channel's (`[[channel]]`).
/// Each channel runs its own motion and object detection, keeps its own activity and follows its own `trigger`; the
/// first channel's events name no channel (as before there were channels), another's name it.
package struct ChannelScope: Sendable, Equatable {
    /// The channel its events name: nil for the first channel.
    package let events: String?
    /// Its cameras: a switch to another channel's camera is not a switch of this picture. Empty: every camera.
    package let cameras: Set<String>
    /// The channel its trigger starts and stops: nil when there is one channel (`record.start` as it always was).
    package let records: String?

    package init(events: String?, cameras: some Sequence<String>, records: String?) {
        (self.events, self.cameras, self.records) = (events, Set(cameras), records)
    }

    /// The only channel of a config without `[[channel]]` tables (or a test's): every event and camera is its own.
    package static let only = ChannelScope(events: nil, cameras: [], records: nil)

    /// The first of `channels` (every channel's name, the first first), with its cameras.
    package static func first(of channels: [String], cameras: [String]) -> ChannelScope {
        ChannelScope(events: nil, cameras: cameras, records: channels.count > 1 ? channels.first : nil)
    }

    /// A channel after the first.
    package static func other(_ name: String, cameras: [String]) -> ChannelScope {
        ChannelScope(events: name, cameras: cameras, records: name)
    }

    /// Whether a switch changed this channel's picture.
    package func owns(_ switched: CameraSwitched) -> Bool { cameras.isEmpty || cameras.contains(switched.to) }

    /// Whether a detection event (by the channel it names) is this channel's.
    package func owns(channel: String?) -> Bool { channel == events }

    /// Whether a recording is one this channel's trigger may be following.
    package func owns(_ recording: RecordingResult) -> Bool { records == nil || recording.channel == records }
}
