import ApplianceProtocol

extension HomeAssistantDiscovery {
    /// Which entities a channel has: its name, whether its motion detection is on, the labels it tracks.
    package struct ChannelEntities: Sendable, Equatable {
        package var name: String
        package var motion: Bool
        package var objects: [String]

        package init(name: String, motion: Bool = false, objects: [String] = []) {
            (self.name, self.motion, self.objects) = (name, motion, objects)
        }
    }

    /// One channel as Home Assistant sees it when there are several: its recording switch (starting or stopping
    /// that channel alone), a snapshot button, its last clip's thumbnail, a camera showing its latest picture, and
    /// its own motion and object sensors while its detection is on. Object ids begin `channel_<name>_`, which no
    /// device-wide entity does.
    func channelEntities(_ channel: ChannelEntities) -> [Entity] {
        let (name, word) = (channel.name, MQTTTopics.word(channel.name))
        var list = [
            entity(
                "switch", "channel_\(word)_recording", "Recording \(name)",
                [
                    "state_topic": .string(topics.channelRecording(name)),
                    "command_topic": .string(topics.channelRecordingSet(name)), "payload_on": "ON",
                    "payload_off": "OFF", "icon": "mdi:record-rec",
                ]),
            entity(
                "button", "channel_\(word)_snapshot", "Snapshot \(name)",
                [
                    "command_topic": .string(topics.channelSnapshotSet(name)), "payload_press": "PRESS",
                    "icon": "mdi:camera",
                ]
            ),
            entity(
                "image", "channel_\(word)_thumbnail", "Last thumbnail \(name)",
                ["image_topic": .string(topics.channelThumbnail(name)), "content_type": "image/jpeg"]),
            entity(
                "camera", "channel_\(word)_picture", "Camera \(name)",
                ["topic": .string(topics.channelPicture(name)), "icon": "mdi:cctv"]),
        ]
        if channel.motion {
            list.append(
                entity(
                    "binary_sensor", "channel_\(word)_motion", "Motion \(name)",
                    ["state_topic": .string(topics.channelMotion(name)), "device_class": "motion"]))
        }
        for label in channel.objects {
            let labelWord = MQTTTopics.word(label)
            list.append(
                entity(
                    "binary_sensor", "channel_\(word)_\(labelWord)_occupancy", "\(name) \(label) occupancy",
                    ["state_topic": .string(topics.channelObject(name, label)), "device_class": "occupancy"]))
            list.append(
                entity(
                    "sensor", "channel_\(word)_\(labelWord)_count", "\(name) \(label) count",
                    [
                        "state_topic": .string(topics.channelObjectCount(name, label)), "state_class": "measurement",
                        "icon": "mdi:account-group",
                    ]))
        }
        return list
    }
}
