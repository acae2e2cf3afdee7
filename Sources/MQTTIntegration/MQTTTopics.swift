/// Every topic the appliance publishes or listens to, under `topic_prefix`. States are retained; commands are the
/// state topic plus `/set`.
package struct MQTTTopics: Sendable, Equatable {
    package let prefix: String

    package var availability: String { prefix + "/availability" }
    package var recording: String { prefix + "/recording" }
    package var elapsed: String { prefix + "/elapsed" }
    package var camera: String { prefix + "/camera" }
    package var freeSpace: String { prefix + "/free_space" }
    package var timeUntilWrap: String { prefix + "/time_until_wrap" }
    package var storage: String { prefix + "/storage" }
    package var problem: String { prefix + "/problem" }
    package var problemAttributes: String { prefix + "/problem/attributes" }
    package var backupQueue: String { prefix + "/backup_queue" }
    package var clips: String { prefix + "/clips" }
    package var lastClip: String { prefix + "/last_clip" }
    package var thumbnail: String { prefix + "/thumbnail" }
    /// The latest picture of the (first channel's) camera, for Home Assistant's camera entity: a snapshot taken
    /// through MQTT, or a finished activity's picture (motion's frame with the most change, an object's best).
    package var picture: String { prefix + "/picture" }
    package var gesture: String { prefix + "/gesture" }
    /// ON while motion goes on (`[motion] enabled`), ON while sound goes on (`[sound] enabled`).
    package var motion: String { prefix + "/motion" }
    package var sound: String { prefix + "/sound" }
    /// ON while a tracked object of `label` is present (`[objects] track`), and how many the last run found.
    package func object(_ label: String) -> String { prefix + "/objects/" + Self.word(label) }
    package func objectCount(_ label: String) -> String { object(label) + "/count" }
    /// Each stored activity (motion or sound that ended, a press, a mark) as a Home Assistant event (not retained).
    package var activity: String { prefix + "/activity" }
    /// How many activities today (the device's day), with the count of each kind as attributes.
    package var eventsToday: String { prefix + "/events_today" }
    package var eventsTodayAttributes: String { eventsToday + "/attributes" }

    /// With several channels (`[[channel]]`), each has its own topics under `channels/<name>`: whether it records
    /// (ON/OFF, and `/set` to start or stop it alone), its motion, its tracked objects, its last clip's thumbnail, its
    /// latest picture and a snapshot button.
    package func channel(_ name: String) -> String { prefix + "/channels/" + Self.word(name) }
    package func channelRecording(_ name: String) -> String { channel(name) + "/recording" }
    package func channelMotion(_ name: String) -> String { channel(name) + "/motion" }
    package func channelObject(_ name: String, _ label: String) -> String {
        channel(name) + "/objects/" + Self.word(label)
    }
    package func channelObjectCount(_ name: String, _ label: String) -> String {
        channelObject(name, label) + "/count"
    }
    package func channelThumbnail(_ name: String) -> String { channel(name) + "/thumbnail" }
    package func channelPicture(_ name: String) -> String { channel(name) + "/picture" }
    package func channelRecordingSet(_ name: String) -> String { channelRecording(name) + "/set" }
    package func channelSnapshotSet(_ name: String) -> String { channel(name) + "/snapshot/set" }

    /// A camera's own problem state (ON: failed or missing).
    package func camera(_ name: String) -> String { prefix + "/cameras/" + Self.word(name) }

    package var recordingSet: String { recording + "/set" }
    package var snapshotSet: String { prefix + "/snapshot/set" }
    package var protectSet: String { prefix + "/protect/set" }
    package var cameraSet: String { camera + "/set" }
    /// A chime on the speaker: its name (`chime`, `recording-started`…), or PRESS for the ding-dong.
    package var chimeSet: String { prefix + "/chime/set" }
    /// Every command topic, subscribed with QoS 1 (a channel's by wildcard: the channels are known only once the
    /// entry point has answered, after the subscription).
    package var commands: [String] {
        [
            recordingSet, snapshotSet, protectSet, cameraSet, chimeSet, prefix + "/channels/+/recording/set",
            prefix + "/channels/+/snapshot/set",
        ]
    }

    /// The channel a per-channel command topic names (`channels/<word>/…` where `<word>` is `word(name)`), and the
    /// rest of the topic after it.
    package func channelCommand(_ topic: String, channels: [String]) -> (channel: String, rest: String)? {
        let start = prefix + "/channels/"
        guard topic.hasPrefix(start) else { return nil }
        let levels = topic.dropFirst(start.count).split(separator: "/", maxSplits: 1)
        guard levels.count == 2, let name = channels.first(where: { Self.word($0) == levels[0] }) else { return nil }
        return (name, String(levels[1]))
    }

    /// A name as one topic level (and a discovery object id): letters, digits, `_` and `-`; anything else `_`.
    package static func word(_ name: String) -> String {
        String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") ? $0 : "_" })
    }
}
