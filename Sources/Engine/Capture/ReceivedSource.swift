import ApplianceBase
import ApplianceProtocol
import Foundation
import GStreamerKit
import Settings

#if canImport(Glibc)
    import Glibc
#endif

/// A camera source that runs in a pipeline of its own (a `NetworkReceiver`, made at each start) and hands its decoded
/// frames to an appsrc in the camera's bin (live, stamped on arrival, leaky): an `rtsp` camera, and a `pipeline`
/// camera whose pads come later (uridecodebin, rtspsrc, decodebin). In the live graph such a source gave no frame
/// (measured: uridecodebin over RTSP, and rtspsrc ! rtph264depay ! avdec_h264, "no frame within 5 s" in a camera's
/// bin while the same description ran on its own), and a network source's failures, reconnections and clock belong
/// outside the recording's pipeline anyway. An `rtsp` camera's password is read from `password_file` at each start,
/// so a password changed on the camera and in the file is taken at the next retry.
package final class ReceivedSource: Sendable {
    let camera: ApplianceConfig.Camera
    /// The camera's source bin: the appsrc, ghosted as `src`.
    let bin: Bin
    private let input: Element
    private let receiver = Locked<NetworkReceiver?>(nil)
    /// What the last receiver saw (kept after it stops, for `ctl cameras`).
    private let lastStats = Locked<NetworkReceiver.Stats?>(nil)
    /// `[audio] source = "camera"`: the raw format its sound is decoded to (nil: dropped), and where it goes now
    /// (the microphone's appsrc while this camera is shown). Kept here: each start makes a new receiver.
    private let sound = Locked<(format: String?, target: Element?)>((nil, nil))
    /// Where its H.264 goes as sent, for a channel that stores it so (nil: it is decoded and encoded again).
    let asSent: AsSentOutput?

    init(_ camera: ApplianceConfig.Camera, asSent: AsSentOutput? = nil) throws {
        self.camera = camera
        self.asSent = asSent
        bin = Bin(name: "source")
        input = try Element.make("appsrc", name: "network")
        try input.set("format", string: "time")
        input.set("is-live", true)
        input.set("do-timestamp", true)
        input.set("block", false)
        input.set("max-buffers", uint64: 2)
        try input.set("leaky-type", string: "downstream")  // a late frame replaces the oldest, never waits
        try bin.add(input)
        try bin.addGhostPad(named: "src", target: input.staticPad("src")!)
    }

    /// The URL as logged and shown: it never holds credentials (the config refuses them).
    var url: String { camera.url }

    /// The source for `camera` when it runs in a receiver: an `rtsp` camera, or a `pipeline` one whose description
    /// adds its pads later; nil for any other.
    static func make(for camera: ApplianceConfig.Camera, kind: String, asSent: AsSentOutput? = nil) throws
        -> ReceivedSource?
    {
        switch kind {
        case "rtsp":
            return try ReceivedSource(camera, asSent: asSent)
        case "pipeline":
            return try parse(camera).exposeDynamicPads() > 0 ? ReceivedSource(camera) : nil
        default:
            return nil
        }
    }

    /// Parsed without ghosting its unlinked pads: a ghost would take the sink pad a delayed link needs
    /// (`rtspsrc ! rtph264depay …` never linked); `Bin.exposeDynamicPads` gives the bin its output.
    private static func parse(_ camera: ApplianceConfig.Camera) throws -> Bin {
        try FragmentLibrary.parse(
            camera.pipeline, label: "camera '\(camera.name)' pipeline", binName: "source", ghostUnlinkedPads: false)
    }

    /// Starts a receiver for the camera (blocking: an `rtsp` camera reads its password file and resolves its host).
    /// `onFailure`: the receiver's first failure in words, from a GStreamer thread (it must not block).
    func start(onFailure: @escaping @Sendable (String) -> Void) throws {
        stop()
        let made = try camera.source == "rtsp" ? connect(onFailure: onFailure) : describe(onFailure: onFailure)
        if let format = sound.withLock({ $0.format }), camera.source == "rtsp" { made.carrySound(caps: format) }
        if let asSent, camera.source == "rtsp" {
            made.storeAsSent(to: asSent.input)
            made.decodeEveryFrame(asSent.decodeEveryFrame)
        }
        try made.start()
        receiver.withLock { $0 = made }
        made.sendSound(to: sound.withLock { $0.target })  // after it is stored: a `sendSound` meanwhile is not lost
    }

    private func describe(onFailure: @escaping @Sendable (String) -> Void) throws -> NetworkReceiver {
        let source = try Self.parse(camera)
        source.exposeDynamicPads()
        return try NetworkReceiver(source: source, target: input, onFailure: onFailure)
    }

    private func connect(onFailure: @escaping @Sendable (String) -> Void) throws -> NetworkReceiver {
        try Self.receiver(for: camera, target: input, onFailure: onFailure)
    }

    /// A receiver for an `rtsp` camera (blocking: reads its password file, resolves its host).
    private static func receiver(
        for camera: ApplianceConfig.Camera, target: Element?,
        onFailure: @escaping @Sendable (String) -> Void
    ) throws -> NetworkReceiver {
        let password =
            try camera.passwordFile.isEmpty
            ? nil
            : SecretFile.read(
                file: camera.passwordFile, key: "camera '\(camera.name)' password_file", environmentVariable: "")
        if let problem = resolveProblem(camera.url) { throw ApplianceError(.unavailable, problem) }
        return try NetworkReceiver(
            url: camera.url, user: camera.username.isEmpty ? nil : camera.username, password: password,
            transport: NetworkReceiver.Transport(name: camera.transport) ?? .auto,
            latencyMs: camera.latencyMs, timeoutS: max(1, Int(camera.startTimeoutS.rounded(.up))),
            target: target, onFailure: onFailure)
    }

    /// Connects to an `rtsp` camera apart from any graph (the doctor) until its first decoded frame, a failure, or
    /// `timeout`: the stream as it comes, or why not in words. Blocking.
    package static func probe(_ camera: ApplianceConfig.Camera, timeout: Duration) -> Result<
        NetworkReceiver.Stats, ApplianceError
    > {
        let receiver: NetworkReceiver
        do {
            receiver = try Self.receiver(for: camera, target: nil) { _ in }
            try receiver.start()
        } catch let error as ApplianceError {
            return .failure(error)
        } catch {
            return .failure(ApplianceError(.unavailable, "\(error)"))
        }
        defer { receiver.stop() }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let stats = receiver.stats
            if let failure = stats.failure { return .failure(ApplianceError(.unavailable, failure)) }
            if stats.frames > 0 { return .success(stats) }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return .failure(
            ApplianceError(
                .unavailable,
                "no frame within \(timeout)"
                    + (receiver.stats.noVideoTrack ? ": the camera's stream has no video track" : "")))
    }

    /// From now on the camera's sound is decoded to `format` (takes effect at its next start).
    func carrySound(format: String) { sound.withLock { $0.format = format } }

    /// Where the camera's sound goes from now on (nil: nowhere). Never blocks.
    func sendSound(to target: Element?) {
        sound.withLock { $0.target = target }
        receiver.withLock { $0 }?.sendSound(to: target)
    }

    /// Stops the receiver (blocking: rtspsrc's TEARDOWN, bounded by its timeout).
    func stop() {
        guard
            let running = receiver.withLock({ r in
                defer { r = nil }
                return r
            })
        else { return }
        lastStats.withLock { $0 = running.stats }
        running.stop()
    }

    /// The running receiver's view, else the last one's.
    var stats: NetworkReceiver.Stats? { receiver.withLock { $0 }?.stats ?? lastStats.withLock { $0 } }

    /// The stream as it comes, for `ctl cameras`: "H264 1920x1080@25" (nil before its first frame).
    package static func summary(_ stats: NetworkReceiver.Stats) -> String? {
        guard stats.width > 0 else { return nil }
        let rate =
            stats.fps > 0
            ? "@" + (stats.fps == stats.fps.rounded() ? "\(Int(stats.fps))" : String(format: "%.2f", stats.fps)) : ""
        return "\(stats.codec.map { $0 + " " } ?? "")\(stats.width)x\(stats.height)\(rate)"
    }

    /// How the stream is taken, for `ctl cameras`: "decoded by avdec_h264, sound AAC" ("sound AAC dropped" unless
    /// `[audio] source = "camera"`; nil before it is known).
    package static func detail(_ stats: NetworkReceiver.Stats) -> String? {
        guard let decoder = stats.decoder else { return nil }
        let names = [
            "MPEG4-GENERIC": "AAC", "MP4A-LATM": "AAC", "PCMU": "G.711 µ-law", "PCMA": "G.711 A-law", "OPUS": "Opus",
        ]
        let sound =
            stats.soundCodec.map { ", sound \(names[$0] ?? $0)" + (stats.soundBuffers > 0 ? "" : " dropped") } ?? ""
        guard stats.asSent else { return "decoded by \(decoder)" + sound }
        return "stored as sent\(gop(stats).map { ", GOP " + $0 } ?? ""), pictures decoded by \(decoder)" + sound
    }

    /// The camera's keyframe spacing as sent: "1.0 s (30 frames)"; nil before two keyframes came.
    package static func gop(_ stats: NetworkReceiver.Stats) -> String? {
        guard stats.gopNs > 0 else { return nil }
        return String(format: "%.1f s", Double(stats.gopNs) / 1e9) + " (\(stats.gopFrames) frames)"
    }

    /// Why the URL's host cannot be reached by name (nil when it resolves, or is an address).
    static func resolveProblem(_ url: String) -> String? {
        guard let host = URLComponents(string: url)?.host, !host.isEmpty else { return "the url has no host: \(url)" }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &found)
        if let found { freeaddrinfo(found) }
        guard status != 0 else { return nil }
        return "cannot resolve the camera's host '\(host)': \(String(cString: gai_strerror(status)))"
    }
}
