import ApplianceBase
import ApplianceProtocol
import Foundation
import GStreamerKit
import Logging
import Settings
import SystemCalls

/// One configured camera: its source fragment and normalising chain in a bin of its own, linked to a selector pad.
/// The bin's state is locked, so the pipeline never starts or stops it: the switcher does, one camera at a time
/// unless `always_on` (two USB cameras on one bus cannot stream together).
package final class CameraSlot: Sendable {
    package enum State: Sendable, Equatable {
        case active, standby, starting, missing(String), error(String)

        package var name: String {
            switch self {
            case .active: "active"
            case .standby: "standby"
            case .starting: "starting"
            case .missing: "missing"
            case .error: "error"
            }
        }

        package var detail: String? {
            switch self {
            case .missing(let reason), .error(let reason): reason
            default: nil
            }
        }
    }

    /// Every state's name, as status and metrics show them.
    package static let stateNames = ["active", "standby", "starting", "missing", "error"]

    package let name: String
    package let config: ApplianceConfig.Camera
    /// v4l2 | test | pipeline | rtsp
    package let kind: String
    package let bin: Bin
    let selectorPad: Pad
    private let fragments: FragmentLibrary
    private let video: ApplianceConfig.Video
    /// The first element after the source (the source links to it).
    private let convert: Element
    /// The source fragment's bin; for a V4L2 camera remade at start when the chosen mode changes.
    private let source: Locked<Bin?>
    /// The mode a V4L2 camera was last started in (nil for other sources, or before its first start).
    package let mode = Locked<ModeChoice?>(nil)
    private let output: Pad
    package let state: Locked<State>
    private let firstFrame = Locked<OneShot<Bool>?>(nil)
    /// When a start that was abandoned began (nil: none is stuck).
    private let stuckSince = Locked<ContinuousClock.Instant?>(nil)
    private let running = Locked(false)
    /// Frames this camera has delivered to the selector since start (metrics: frames in).
    private let delivered = Counter()
    package var framesIn: UInt64 { delivered.value }
    /// The camera's rate keeper: its `duplicate` count is the frames repeated because the camera was late.
    private let rate: Element
    package var framesRepeated: UInt64 { rate.get("duplicate").flatMap { UInt64($0) } ?? 0 }
    /// An `rtsp` camera's receiver, or a `pipeline` camera's whose pads come later (nil for other sources).
    let network: ReceivedSource?
    /// Why the last start failed before its first frame, as its source said it (an error on the bus).
    private let startFailure = Locked<String?>(nil)
    /// The files its source reads (filesrc locations); one that is a FIFO is held open (`fifo`).
    private let fileLocations: [String]
    private let fifoHold = Locked<FifoHold?>(nil)
    /// How long before it is pushed each frame is stamped (running time), in nanoseconds: 0 for cameras.
    private let stampLead: UInt64

    /// Builds the camera's bin inside `pipeline` and links it to `selector`. `onStreamEnd` is called (from a
    /// streaming thread) when the camera's stream ends by itself: its EOS never reaches the selector.
    /// `repeatsFrames` false: frames are never repeated up to the channel's rate (as for a camera stored as sent).
    package init(
        config camera: ApplianceConfig.Camera, kind: String, initialState: State, fragments: FragmentLibrary,
        rawCaps: Caps, video: ApplianceConfig.Video, pipeline: Pipeline, selector: Element,
        asSent: AsSentOutput? = nil, repeatsFrames: Bool = true, stampLead: UInt64 = 0,
        onStreamEnd: @escaping @Sendable (String) -> Void
    ) throws {
        name = camera.name
        self.stampLead = stampLead
        config = camera
        self.kind = kind
        self.fragments = fragments
        self.video = video
        state = Locked(initialState)
        bin = Bin(name: "camera-\(camera.name)")
        let conversion = try Self.conversion(camera, rawCaps: rawCaps)
        (convert, rate) = (conversion.convert, conversion.rate)
        // A camera stored as sent feeds no encoder: its decoded pictures (one a GOP, unless something looks at every
        // frame) go on as they come, not repeated up to the channel's rate for every branch to handle each copy.
        if asSent != nil || !repeatsFrames { rate.set("drop-only", true) }
        try bin.add(conversion.elements)
        try Element.link(conversion.elements)
        // A V4L2 camera's source is made when it starts, in the mode its device offers then (see `V4L2Source`).
        network = try ReceivedSource.make(for: camera, kind: kind, asSent: asSent)
        let made = try network?.bin ?? Self.makeSource(camera, kind: kind, fragments: fragments, video: video)
        if let made {
            try bin.add(made)
            if network == nil, kind == "pipeline" {
                let pace = try Self.pacer()
                try bin.add(pace)
                try made.link(pace)
                try pace.link(conversion.convert)
            } else {
                try made.link(conversion.convert)
            }
        }
        source = Locked(made)
        fileLocations = made?.fileLocations ?? []
        let output = try bin.addGhostPad(named: "src", target: conversion.label.staticPad("src")!)
        self.output = output
        Self.stampEarly(output, by: stampLead)
        try pipeline.add(bin)
        bin.setLockedState(true)
        selectorPad = try selector.requestPad("sink_%u")
        try output.link(selectorPad)
        Self.watch(output, name: camera.name, delivered: delivered, firstFrame: firstFrame, onStreamEnd: onStreamEnd)
        _ = fifo  // held from now on: a capture process already waiting to open it for writing goes on
    }

    /// Stamps each frame leaving `output` `lead` nanoseconds before its PTS, as a live capture source does (its
    /// frame is stamped when it was taken, and comes a little after): the filler's imagefreeze pushes each picture on
    /// time, so without the lead it took the slot of a camera's first frame that came a few ms behind the clock. On
    /// the buffers, not as a pad offset: an offset lives in the segment, and the selector passes the first segment
    /// downstream, where it moved everything after the selector one interval behind its PTS.
    private static func stampEarly(_ output: Pad, by lead: UInt64) {
        guard lead > 0 else { return }
        output.addProbe(.buffer) { info in
            if let buffer = info.buffer, buffer.pts != .max, buffer.pts >= lead {
                info.setBufferTiming(pts: buffer.pts - lead, duration: buffer.duration)
            }
            return .ok
        }
    }

    /// The FIFO this camera reads, held open for reading from the first look that finds it (nil: it reads none, or
    /// the FIFO does not exist yet). The camera starts only once a writer has written to it (`awaitWriter`), so its
    /// filesrc never blocks in open(), and its stop never breaks the writer's pipe (see `FifoHold`).
    var fifo: FifoHold? {
        fifoHold.withLock { hold in
            if hold == nil { hold = fileLocations.lazy.compactMap { FifoHold(path: $0) }.first }
            return hold
        }
    }

    /// A camera fed through a FIFO that nothing writes to: it is not started (it would block in open()).
    package struct NoWriter: Error, CustomStringConvertible {
        package let path: String
        package let waited: Duration
        package var description: String {
            "no writer on the FIFO \(path) (none wrote within \(DeviceCall.Abandoned.format(waited)) s)"
        }
    }

    /// Waits until a writer has written to `fifo`, checking every 50 ms, for at most `deadline`.
    private func awaitWriter(_ fifo: FifoHold, deadline: Duration) async throws {
        let until = ContinuousClock.now + deadline
        while !fifo.hasWriter {
            guard ContinuousClock.now < until else { throw NoWriter(path: fifo.path, waited: deadline) }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// The elements between a camera's source and the selector: convert, mirror and rotate as configured, scale,
    /// the rate keeper, the graph's raw caps, and the label that gives every slot the graph's exact caps.
    private static func conversion(_ camera: ApplianceConfig.Camera, rawCaps: Caps) throws
        -> (elements: [Element], convert: Element, rate: Element, label: Element)
    {
        let convert = try Element.make("videoconvert", name: "convert")
        var chain: [Element] = [convert]
        if camera.mirror {
            let flip = try Element.make("videoflip", name: "mirror")
            try flip.set("video-direction", string: "horiz")
            chain.append(flip)
        }
        if camera.rotate != 0 {
            let flip = try Element.make("videoflip", name: "rotate")
            try flip.set("video-direction", string: ["90": "90r", "180": "180", "270": "90l"]["\(camera.rotate)"]!)
            chain.append(flip)
        }
        let scale = try Element.make("videoscale", name: "scale")
        scale.set("add-borders", true)
        let rate = try Element.make("videorate", name: "rate")
        let filter = try Element.make("capsfilter", name: "caps")
        filter.set("caps", rawCaps)
        let label = try Element.make("capssetter", name: "label")
        label.set("caps", try outputCaps(rawCaps))
        label.set("replace", true)
        chain += [scale, rate, filter, label]
        return (chain, convert, rate, label)
    }

    /// Holds each frame of a `pipeline` camera until its time on the clock (the bin's base time is its start, see
    /// `startNow`). A file or FIFO source stamps frames by their count and pushes them as fast as they are read:
    /// a writer that caught up in a burst put the output seconds ahead of the clock when nothing downstream waits on
    /// it (no preview, no web page), and when that camera ended the filler's frames fell in slots already taken (the
    /// chaos soak: the output stalled for 5 to 32 s). A live source's frames come after their time and pass at once.
    private static func pacer() throws -> Element {
        let pace = try Element.make("identity", name: "pace")
        pace.set("sync", true)
        return pace
    }

    /// The source bin of a `pipeline` camera or a built-in kind; nil for V4L2 (made at each start).
    private static func makeSource(
        _ camera: ApplianceConfig.Camera, kind: String, fragments: FragmentLibrary,
        video: ApplianceConfig.Video
    ) throws -> Bin? {
        switch kind {
        case "v4l2":
            return nil
        case "pipeline":
            return try FragmentLibrary.parse(
                camera.pipeline, label: "camera '\(camera.name)' pipeline", binName: "source")
        default:
            return try fragments.makeBin(
                "sources", "video-\(kind)", FragmentLibrary.videoSourceValues(camera, video: video, caps: ""),
                binName: "source")
        }
    }

    /// Counts the frames the camera delivers (the first fires `firstFrame`) and keeps its end of stream from the
    /// selector: a camera that ends (unplugged, num-buffers, an error upstream) must not end the recording.
    private static func watch(
        _ output: Pad, name: String, delivered: Counter, firstFrame: Locked<OneShot<Bool>?>,
        onStreamEnd: @escaping @Sendable (String) -> Void
    ) {
        output.addProbe([.buffer, .eventDownstream]) { info in
            if info.buffer != nil {
                delivered.increment()
                firstFrame.withLock { $0 }?.fire(true)
                return .ok
            }
            if info.event == .eos {
                onStreamEnd(name)
                return .drop
            }
            return .ok
        }
    }

    package var isRunning: Bool { running.withLock { $0 } }

    /// Whether it can start while another camera streams: a received source (a network camera) shares no bus, so a
    /// switch to it, or taking it back after an outage, never shows the filler.
    var startsBesideOthers: Bool { network != nil }

    /// What status shows as the camera's device: a V4L2 node, an IP camera's URL (it holds no credentials).
    package var deviceName: String? {
        switch kind {
        case "v4l2": config.device
        case "rtsp": config.url
        default: nil
        }
    }

    /// The caps every camera slot (and the filler) labels its frames with: the graph's size, format and rate, and
    /// nothing else. The capsfilter makes the frames that; the label makes the caps event byte for byte the same
    /// whatever the source added (colorimetry, chroma-site, multiview-mode), so a switch between sources is no caps
    /// change downstream. A change made the encoder renegotiate (openh264 re-initialised, x264 too) and send an
    /// ALLOCATION query down through the encoded tee (measured: a `pipeline` camera after the filler, then
    /// openh264 gave no output for good). Colorimetry is left to the default for the size (BT.601 below 720 lines,
    /// BT.709 from 720): a camera that says otherwise is relabelled, not converted (a matrix conversion per frame).
    static func outputCaps(_ rawCaps: Caps) throws -> Caps {
        try Caps(rawCaps.description + ",interlace-mode=(string)progressive")
    }

    /// Reads the device's modes, chooses one, and (re)makes the source bin when the choice differs from the one
    /// in place. The bin is stopped (NULL) here, so the source can be swapped without touching the rest.
    private func prepareV4L2Source() throws {
        let choice = try V4L2Source.choose(for: config, video: video)
        let current = source.withLock { $0 }
        if current != nil, mode.withLock({ $0 }) == choice { return }
        let made = try V4L2Source.makeBin(config, choice: choice, video: video, fragments: fragments)
        if let current {
            current.unlink(convert)
            bin.remove(current)
        }
        try bin.add(made)
        try made.link(convert)
        source.withLock { $0 = made }
        mode.withLock { $0 = choice }
    }

    /// Starts the camera's bin; the returned one-shot fires with its first frame. The start (for a V4L2 camera also
    /// reading its modes) runs as a `DeviceCall`: one that has not returned within `deadline` is abandoned, the
    /// camera is `stuck` until it returns (it is then stopped again, on that call's thread), and it cannot be started
    /// meanwhile. A network source waiting for an answer blocks there; a camera fed through a FIFO is started only
    /// once its writer has written (`NoWriter` after `deadline`), since a filesrc opening a FIFO with no writer would.
    package func start(following pipeline: Pipeline, deadline: Duration) async throws -> OneShot<Bool> {
        if let since = stuckSince.withLock({ $0 }) {
            throw ApplianceError(
                .unavailable,
                """
                its start of \((ContinuousClock.now - since).components.seconds) s ago has not returned yet (stuck \
                in its source)
                """
            )
        }
        if let fifo { try await awaitWriter(fifo, deadline: deadline) }
        let shot = OneShot<Bool>()
        firstFrame.withLock { $0 = shot }
        startFailure.withLock { $0 = nil }
        let began = ContinuousClock.now
        do {
            try await DeviceCall.run(
                "camera '\(name)' start", deadline: deadline,
                afterAbandoned: { [self] _ in
                    stopBin()
                    stuckSince.withLock { $0 = nil }
                },
                { [self] in try startNow(following: pipeline) }
            )
        } catch let abandoned as DeviceCall.Abandoned {
            stuckSince.withLock { $0 = began }
            throw abandoned
        }
        running.withLock { $0 = true }
        return shot
    }

    /// The blocking part of `start`.
    private func startNow(following pipeline: Pipeline) throws {
        if kind == "v4l2" { try prepareV4L2Source() }
        output.setOffset(Int64(bin.startNow(in: pipeline)))
        do {
            try bin.setState(.playing)
            try network?.start { [weak self] reason in self?.sourceFailed(reason) }
        } catch {
            network?.stop()
            _ = try? bin.setState(.null)
            throw error
        }
    }

    /// Its source failed (an error on the bus from inside its bin): a start waiting for the first frame ends now
    /// with `reason`, not at its timeout with "no frame".
    package func sourceFailed(_ reason: String) {
        startFailure.withLock { $0 = $0 ?? reason }
        firstFrame.withLock { $0 }?.fire(false)
    }

    /// Why the last start ended without a frame, when its source said.
    package var startFailureReason: String? { startFailure.withLock { $0 } }

    /// Whether a start of this camera was abandoned and has not returned: nothing can be done with its bin (its
    /// state lock is held) until it does.
    var isStuck: Bool { stuckSince.withLock { $0 != nil } }

    /// Lets this bin start and stop with the pipeline (the filler: video must flow while the pipeline starts).
    func runWithPipeline() {
        bin.setLockedState(false)
        running.withLock { $0 = true }
    }

    /// Stops the camera (releases the device), as a `DeviceCall` with `deadline`: a driver can hang in close too.
    /// A camera whose start is stuck is left alone: it is stopped when that start returns.
    package func stop(deadline: Duration = CameraSlot.stopDeadline) async {
        guard !isStuck else { return }
        do {
            try await DeviceCall.run("camera '\(name)' stop", deadline: deadline) { [self] in stopNow() }
        } catch {
            // Abandoned: the thread goes on stopping it; the camera counts as stopped.
        }
    }

    static let stopDeadline: Duration = .seconds(5)

    /// Stops the camera now (blocking: off the cooperative pool); nothing to do while a start is stuck.
    func stopNow() {
        guard !isStuck else {
            running.withLock { $0 = false }
            return
        }
        stopBin()
    }

    private func stopBin() {
        running.withLock { $0 = false }
        network?.stop()
        bin.setLockedState(true)
        _ = try? bin.setState(.null)
    }
}
