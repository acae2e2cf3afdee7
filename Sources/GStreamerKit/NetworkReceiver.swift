import CGStreamer
import CGStreamerShim

/// An IP camera's receiver: a pipeline of its own that decodes the camera's stream (uridecodebin, its rtspsrc given
/// the credentials, transport and latency) and hands each video frame to an appsrc of the live graph
/// (`NetworkReceiver.target`), or only counts frames (the doctor). See network_source.c for why it is a pipeline of
/// its own. Its failures reach the live graph's bus as errors of the target, in words a person can act on.
public final class NetworkReceiver: @unchecked Sendable {
    public enum Transport: Int32, Sendable {
        case auto = 0, tcp = 1, udp = 2

        public init?(name: String) {
            switch name {
            case "auto": self = .auto
            case "tcp": self = .tcp
            case "udp": self = .udp
            default: return nil
            }
        }
    }

    /// What the receiver has seen so far.
    public struct Stats: Sendable, Equatable {
        public var frames: UInt64
        public var width: Int
        public var height: Int
        /// Frames a second as the stream says (0 when it does not).
        public var fps: Double
        /// The RTP encoding of its video ("H264", "H265", "JPEG"); nil before it is known.
        public var codec: String?
        /// The decoder element chosen (the board's where one ranks first, else libav's).
        public var decoder: String?
        /// The first failure, in words; nil while none.
        public var failure: String?
        /// The source has given all its pads and none was video (a late one may still come).
        public var noVideoTrack = false
        /// Sound buffers decoded (only while sound is carried: `carrySound`).
        public var soundBuffers: UInt64 = 0
        /// The RTP encoding of its sound ("MPEG4-GENERIC", "PCMU"); nil when it has none or it is not known yet.
        public var soundCodec: String?
        /// Stored as sent (`storeAsSent`): access units handed over, and the camera's last full GOP (its length in
        /// nanoseconds and its frames; 0 before two keyframes came).
        public var asSent = false
        public var units: UInt64 = 0
        public var gopNs: UInt64 = 0
        public var gopFrames = 0
    }

    private let pipeline: Element

    private final class FailureBox: Sendable {
        let call: @Sendable (String) -> Void
        init(_ call: @escaping @Sendable (String) -> Void) { self.call = call }
    }

    /// `target`: the appsrc that takes the frames (nil: they are only counted). `onFailure` is called once, from a
    /// GStreamer thread, with the first failure in words; it must not block. Fails when uridecodebin or appsink is
    /// not installed.
    public convenience init(
        url: String, user: String?, password: String?, transport: Transport, latencyMs: Int, timeoutS: Int,
        target: Element?, onFailure: @escaping @Sendable (String) -> Void = { _ in }
    ) throws {
        try self.init(
            label: "network camera", missing: "uridecodebin or appsink is missing (gstreamer1.0-plugins-base)",
            onFailure: onFailure
        ) { notify, context, release in
            appl_network_source_new(
                url, user, password, transport.rawValue, UInt32(latencyMs), UInt32(timeoutS), target?.pointer,
                notify, context, release)
        }
    }

    /// The same receiver around `source`, a bin whose `src` pad gives raw video (for a `pipeline` camera whose pads
    /// come later: `Bin.exposeDynamicPads`).
    public convenience init(source: Bin, target: Element?, onFailure: @escaping @Sendable (String) -> Void = { _ in })
        throws
    {
        try self.init(label: source.name, missing: "its output cannot be linked to raw video", onFailure: onFailure) {
            notify, context, release in
            appl_source_receiver_new(source.pointer, target?.pointer, notify, context, release)
        }
    }

    private init(
        label: String, missing: String, onFailure: @escaping @Sendable (String) -> Void,
        make: (ApplNetworkFailure, UnsafeMutableRawPointer, GDestroyNotify) -> UnsafeMutablePointer<GstElement>?
    ) throws {
        GStreamer.initialize()
        let context = Unmanaged.passRetained(FailureBox(onFailure)).toOpaque()
        let made = make(
            { context, reason in
                guard let context, let reason else { return }
                Unmanaged<FailureBox>.fromOpaque(context).takeUnretainedValue().call(String(cString: reason))
            }, context,
            { context in
                guard let context else { return }
                Unmanaged<FailureBox>.fromOpaque(context).release()
            })
        guard let made else {
            Unmanaged<FailureBox>.fromOpaque(context).release()
            throw GStreamerError(element: label, message: missing)
        }
        pipeline = Element(retaining: made)
    }

    /// Starts receiving (returns at once; the connection is made on rtspsrc's own thread).
    public func start() throws {
        guard appl_network_source_start(pipeline.pointer) != 0 else {
            throw GStreamerError(element: "network camera", message: stats.failure ?? "the receiver could not start")
        }
    }

    /// Before `start`: the camera's sound is decoded to `caps` (the microphone's raw format) rather than dropped.
    public func carrySound(caps: String) { appl_network_source_carry_sound(pipeline.pointer, caps) }

    /// Before `start`: the camera's H.264 also goes, as sent, to the appsrc `encoded` (its timestamps moved onto that
    /// appsrc's running time), and only keyframes are decoded for the target until `decodeEveryFrame(true)`. Video
    /// other than H.264 is then a failure in words.
    public func storeAsSent(to encoded: Element) {
        appl_network_source_store_as_sent(pipeline.pointer, encoded.pointer)
    }

    /// Whether every frame is decoded for the target, or only keyframes (pictures for thumbnails and snapshots).
    public func decodeEveryFrame(_ all: Bool) { appl_network_source_decode_all(pipeline.pointer, all ? 1 : 0) }

    /// Where the carried sound goes from now on: an appsrc that stamps it on arrival, or nowhere. Never blocks.
    public func sendSound(to target: Element?) { appl_network_source_send_sound(pipeline.pointer, target?.pointer) }

    /// Stops it: rtspsrc sends TEARDOWN (bounded by its teardown timeout) and closes the connection. Blocking.
    public func stop() { _ = try? pipeline.setState(.null) }

    public var stats: Stats {
        var raw = ApplNetworkSourceStats()
        appl_network_source_stats(pipeline.pointer, &raw)
        func text<T>(_ field: T) -> String? {
            let value = withUnsafeBytes(of: field) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            return value.isEmpty ? nil : value
        }
        return Stats(
            frames: UInt64(raw.frames), width: Int(raw.width), height: Int(raw.height),
            fps: raw.fps_d > 0 ? Double(raw.fps_n) / Double(raw.fps_d) : 0,
            codec: text(raw.codec), decoder: text(raw.decoder), failure: text(raw.failure),
            noVideoTrack: raw.no_video_track != 0,
            soundBuffers: UInt64(raw.sound_buffers), soundCodec: text(raw.sound_codec), asSent: raw.as_sent != 0,
            units: UInt64(raw.units), gopNs: UInt64(raw.gop_ns), gopFrames: Int(raw.gop_frames))
    }
}
