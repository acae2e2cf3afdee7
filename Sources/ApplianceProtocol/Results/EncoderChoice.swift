import Foundation

/// Which H.264 encoder the appliance uses and how it came to it: pinned by `[video] encoder`, or chosen by trial
/// among the candidates (`encoder = "auto"`), hardware first, each tried outside the daemon's process; a choice
/// made earlier in this boot, with the same GStreamer plugins and video settings, is reused (`cached`).
public struct EncoderChoice: Codable, Sendable, Equatable {
    public enum How: String, Codable, Sendable {
        case pinned, trial, cached
        /// The encoder chosen before failed while running and this one replaced it (`failures` says why).
        case failover
        /// No trial answered in time (a start on a busy machine): the first software encoder whose trial timed out,
        /// used untried and judged as it runs (by the live failover); not kept for the boot, so the next start tries
        /// again.
        case provisional
    }

    /// One candidate and what its trial gave.
    public struct Trial: Codable, Sendable, Equatable {
        public enum Result: String, Codable, Sendable {
            /// Returned decodable H.264 of the right size in time: the first such is used.
            case passed
            /// Present, tried, and failed (no output, not decodable, wrong size, an error, or the trial crashed).
            case failed
            /// Gave nothing within the trial's time limit (killed).
            case timedOut = "timed_out"
            /// An element of its fragment is not installed: not tried.
            case absent
            /// Not tried: an earlier candidate passed.
            case notTried = "not_tried"
        }
        /// The fragment (`encoders/<name>.gst`).
        public var name: String
        /// The encoder element it uses (`x264enc`).
        public var element: String
        public var result: Result
        /// Why it failed, or what it did ("30 frames 1280x720 in 412 ms").
        public var detail: String
        public var ms: Int
        /// The trial's CPU time a frame in milliseconds, from its first frame out to its last (encoding, and the
        /// test frame made and decoded around it: an upper bound on the encoder's own), when it ran; what a software
        /// encoder's admission is judged by.
        public var cpuMsPerFrame: Double?

        public init(
            name: String, element: String, result: Result, detail: String, ms: Int, cpuMsPerFrame: Double? = nil
        ) {
            (self.name, self.element, self.result, self.detail, self.ms) = (name, element, result, detail, ms)
            self.cpuMsPerFrame = cpuMsPerFrame
        }
    }

    /// The fragment in use.
    public var encoder: String
    /// Its encoder element.
    public var element: String
    public var how: How
    /// Each candidate in the order tried (empty when pinned).
    public var trials: [Trial]
    /// Encoders that failed while this daemon ran, oldest first (absent while none has).
    public var failures: [EncoderFailure]?

    public init(encoder: String, element: String, how: How, trials: [Trial] = []) {
        (self.encoder, self.element, self.how, self.trials) = (encoder, element, how, trials)
    }
}
