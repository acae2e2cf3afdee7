extension ApplianceConfig {
    /// `[speaker]`: the device's voice: sounds played on request (`ctl play`), its own feedback chimes, and talk
    /// from the dashboard. Its own pipeline, made for each sound: it never touches the recording.
    public struct Speaker: Sendable, Equatable {
        /// An ALSA playback device ("default", "hw:1,0"), "none", or "auto": ALSA's default when the board has a
        /// playback device (/dev/snd/pcmC*D*p), else none.
        public var device = "auto"
        /// A GStreamer sink description used instead of `device` ("pulsesink", "filesink location=…" for tests).
        public var pipeline = ""
        /// 0 (mute) to 1 (as the sound is); up to 4 amplifies.
        public var volume = 1.0
        /// Chimes for the device's own feedback: recording started and stopped, a clip protected, storage nearly
        /// full, an error.
        public var feedback = false
        /// Keeps the speaker out of the microphone (webrtcdsp's echo canceller): "auto" (when the microphone is a
        /// sound card and there is a speaker), "on" or "off".
        public var echoCancel = "auto"

        public init(device: String = "auto", pipeline: String = "", volume: Double = 1.0, feedback: Bool = false) {
            (self.device, self.pipeline, self.volume, self.feedback) = (device, pipeline, volume, feedback)
        }
    }
}

extension ConfigSections {
    /// [speaker]
    package static func speaker(_ t: inout TableReader, _ defaults: ApplianceConfig.Speaker) throws
        -> ApplianceConfig.Speaker
    {
        var s = defaults
        s.device = try t.string("device", s.device)
        if s.device.isEmpty { throw t.error("device", "must name an ALSA device, \"default\", \"auto\" or \"none\"") }
        s.pipeline = try t.string("pipeline", s.pipeline)
        s.volume = try t.double("volume", s.volume, 0...4)
        s.feedback = try t.bool("feedback", s.feedback)
        s.echoCancel = try t.oneOf("echo_cancel", s.echoCancel, ["auto", "on", "off"])
        try t.finish()
        return s
    }
}
