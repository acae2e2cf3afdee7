import ApplianceProtocol

/// What the MQTT bridge knows of one channel when there are several (`[[channel]]`): whether it records, its own
/// motion and tracked objects (nil while that channel's detection is off), and its last finished clip. Each is a
/// state topic under `channels/<name>` and a Home Assistant entity named after the channel.
package struct MQTTChannelFacts: Equatable, Sendable {
    package var name: String
    package var recording: Bool
    package var motion: Bool?
    /// Tracked objects present now by label; nil while the channel's object detection is off.
    package var objects: [String: Int]?
    package var lastClip: Recording?

    package init(
        name: String, recording: Bool, motion: Bool? = nil, objects: [String: Int]? = nil, lastClip: Recording? = nil
    ) {
        (self.name, self.recording, self.motion, self.objects, self.lastClip) = (
            name, recording, motion, objects, lastClip
        )
    }

    /// From the channel's status; its last clip is kept from before (status does not carry it).
    package init(_ status: ChannelStatus, lastClip: Recording?) {
        self.init(
            name: status.name, recording: status.state == .recording, motion: status.motion?.active,
            objects: status.objects.map { o in
                Dictionary(uniqueKeysWithValues: o.track.map { ($0, o.present[$0] ?? 0) })
            }, lastClip: lastClip)
    }

    /// A tracked object of `label` began (present at least once) or ended (none), in counts by label that are nil
    /// while object detection is off (the device's, or a channel's).
    package static func mark(_ label: String, present: Bool, in objects: inout [String: Int]?) {
        guard var counts = objects else { return }
        counts[label] = present ? max(1, counts[label] ?? 0) : 0
        objects = counts
    }

    /// Which entities the channel has in Home Assistant (its detection decides which sensors).
    package var entities: HomeAssistantDiscovery.ChannelEntities {
        .init(name: name, motion: motion != nil, objects: (objects ?? [:]).keys.sorted())
    }

    /// Its retained state topics (the thumbnail's bytes are the bridge's, which reads the file).
    package func states(_ topics: MQTTTopics) -> [String: String] {
        var s = [topics.channelRecording(name): recording ? "ON" : "OFF"]
        if let motion { s[topics.channelMotion(name)] = motion ? "ON" : "OFF" }
        for (label, count) in objects ?? [:] {
            s[topics.channelObject(name, label)] = count > 0 ? "ON" : "OFF"
            s[topics.channelObjectCount(name, label)] = "\(count)"
        }
        return s
    }
}
