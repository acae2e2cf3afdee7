import MotionAndSound

/// Channels: what is recorded side by side. A channel is one recorded picture with its cameras (one, or several it
/// switches between), its size, rate and encoder, its trigger and pre/post roll, and whether it records the sound.
extension ApplianceConfig {
    public struct Channel: Sendable, Equatable {
        /// The name clips, events and status give it (`channel` in the JSON).
        public var name: String
        /// The `[[camera]]` names it records, in the order a switch steps through them (the first is active).
        public var cameras: [String]
        /// Its picture and encoder: `[video]`, with the keys the channel sets for itself.
        public var video: Video
        /// What starts its recordings and how long they run on: `[recording]`'s, or its own.
        public var trigger: String
        public var preRecordS: Double
        public var postRecordS: Double
        /// Whether it records the sound of `[audio]` (the microphone, or a camera's own sound).
        public var audio: Bool
        /// The `[motion] zones` its detection watches, by name (nil: every one); `[objects] zones` keep to these.
        public var zones: [String]?
        /// Where its motion never counts (nil: `[motion] masks`).
        public var masks: [RelativePolygon]?

        public init(
            name: String, cameras: [String], video: Video, trigger: String, preRecordS: Double, postRecordS: Double,
            audio: Bool
        ) {
            (self.name, self.cameras, self.video, self.trigger) = (name, cameras, video, trigger)
            (self.preRecordS, self.postRecordS, self.audio) = (preRecordS, postRecordS, audio)
        }
    }

    /// The name of the one channel a config without `[[channel]]` tables has.
    public static let defaultChannelName = "main"

    /// Every channel: the `[[channel]]` tables, or, with none, one channel with every camera and the `[video]` and
    /// `[recording]` settings (a config from before channels means what it always did).
    public var channels: [Channel] {
        if !channelTables.isEmpty { return channelTables }
        return [
            Channel(
                name: Self.defaultChannelName, cameras: cameras.map(\.name), video: video, trigger: recording.trigger,
                preRecordS: recording.preRecordS, postRecordS: recording.postRecordS, audio: audio.source != "none")
        ]
    }

    /// This config as one channel sees it: its cameras (in its order), its `[video]`, its trigger, pre- and
    /// post-roll, and no sound unless it records it. The graph, the recorder and the detectors of a channel run on
    /// this view, so they need not know about channels.
    public func forChannel(_ channel: Channel) -> ApplianceConfig {
        var view = self
        view.cameras = channel.cameras.compactMap { name in cameras.first { $0.name == name } }
        view.video = channel.video
        view.recording.trigger = channel.trigger
        view.recording.preRecordS = channel.preRecordS
        view.recording.postRecordS = channel.postRecordS
        if !channel.audio { view.audio.source = "none" }
        if let names = channel.zones {
            view.motion.zones = motion.zones.filter { names.contains($0.name) }
            view.objects.zones = objects.zones.filter(names.contains)
        }
        if let masks = channel.masks { view.motion.masks = masks }
        view.channelTables = [channel]
        return view
    }

    /// Every channel's view (`forChannel`), with the microphone shared: a sound card is opened by one capture at a
    /// time, so the first channel that records the sound opens it and hands what it hears to the others that record
    /// it (their `[audio] source` is `shared`). A camera's own sound is each camera's, and not shared.
    public var channelViews: [ApplianceConfig] {
        var views = channels.map(forChannel)
        guard Self.sharedAudioSources.contains(audio.source) else { return views }
        let hearing = views.indices.filter { views[$0].audio.source != "none" }
        guard let owner = hearing.first, hearing.count > 1 else { return views }
        views[owner].audio.sharedWith = hearing.dropFirst().compactMap { views[$0].channels.first?.name }
        for index in hearing.dropFirst() { views[index].audio.source = Self.sharedAudioSource }
        return views
    }

    /// The `[audio] source` values one capture serves every channel from.
    static let sharedAudioSources: Set<String> = ["auto", "alsa", "test"]
    /// A channel's view's `[audio] source` when another channel's microphone is its sound.
    public static let sharedAudioSource = "shared"

    /// Whether this (channel's view of the) config stores its camera's stream as sent: its only camera is an `rtsp`
    /// one, `[video] passthrough` is on, and nothing asks for pictures to be changed (the timestamp burnt in, a
    /// mirror or a rotation). Otherwise the channel encodes, as every local camera does.
    public var storesAsSent: Bool {
        guard video.passthrough, !video.timestampOverlay, cameras.count == 1, let camera = cameras.first else {
            return false
        }
        return camera.source == "rtsp" && !camera.mirror && camera.rotate == 0
    }
}
