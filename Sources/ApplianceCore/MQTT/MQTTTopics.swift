/// Every topic the appliance publishes or listens to, under `topic_prefix`. States are retained; commands are the
/// state topic plus `/set`.
struct MQTTTopics: Sendable, Equatable {
    let prefix: String

    var availability: String { prefix + "/availability" }
    var recording: String { prefix + "/recording" }
    var elapsed: String { prefix + "/elapsed" }
    var camera: String { prefix + "/camera" }
    var freeSpace: String { prefix + "/free_space" }
    var timeUntilWrap: String { prefix + "/time_until_wrap" }
    var storage: String { prefix + "/storage" }
    var problem: String { prefix + "/problem" }
    var problemAttributes: String { prefix + "/problem/attributes" }
    var backupQueue: String { prefix + "/backup_queue" }
    var clips: String { prefix + "/clips" }
    var lastClip: String { prefix + "/last_clip" }
    var thumbnail: String { prefix + "/thumbnail" }
    var gesture: String { prefix + "/gesture" }
    /// ON while motion goes on (`[motion] enabled`), ON while sound goes on (`[sound] enabled`).
    var motion: String { prefix + "/motion" }
    var sound: String { prefix + "/sound" }
    /// ON while a tracked object of `label` is present (`[objects] track`), and how many the last run found.
    func object(_ label: String) -> String { prefix + "/objects/" + Self.word(label) }
    func objectCount(_ label: String) -> String { object(label) + "/count" }
    /// Each stored activity (motion or sound that ended, a press, a mark) as a Home Assistant event (not retained).
    var activity: String { prefix + "/activity" }
    /// How many activities today (the device's day), with the count of each kind as attributes.
    var eventsToday: String { prefix + "/events_today" }
    var eventsTodayAttributes: String { eventsToday + "/attributes" }

    /// A camera's own problem state (ON: failed or missing).
    func camera(_ name: String) -> String { prefix + "/cameras/" + Self.word(name) }

    var recordingSet: String { recording + "/set" }
    var snapshotSet: String { prefix + "/snapshot/set" }
    var protectSet: String { prefix + "/protect/set" }
    var cameraSet: String { camera + "/set" }
    /// A chime on the speaker: its name (`chime`, `recording-started`…), or PRESS for the ding-dong.
    var chimeSet: String { prefix + "/chime/set" }
    /// Every command topic, subscribed with QoS 1.
    var commands: [String] { [recordingSet, snapshotSet, protectSet, cameraSet, chimeSet] }

    /// A name as one topic level (and a discovery object id): letters, digits, `_` and `-`; anything else `_`.
    static func word(_ name: String) -> String {
        String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") ? $0 : "_" })
    }
}
