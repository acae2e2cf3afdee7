import ApplianceProtocol
import GStreamerKit

/// The recording's own encoded streams, handed to the RTSP server while it serves: probes on the video and audio
/// tees' sink pads copy each H.264 access unit and AAC frame into the server's shared media (no second encoder).
/// The server holds the encoder gate open while its media exists and asks for a keyframe whenever a client starts,
/// so a viewer waits at most one frame, not a GOP.
///
/// The probes run on streaming threads: they take one short lock and hand the buffer over without waiting (the
/// media's `appsrc` is leaky), so a slow or vanished client never holds up the recording.
final class RTSPFeed: Sendable {
    /// The media's launch description: one `appsrc` per stream, named as `push` addresses them. The payloader
    /// inserts no SPS/PPS of its own (`config-interval=0`): the encoder's parser already puts them in every keyframe,
    /// and a second copy made ffmpeg (Frigate's and go2rtc's reader) split each keyframe in two packets, one of them
    /// stamped a frame early (measured: a repeated frame every GOP).
    static func launch(audio: Bool) -> String {
        let source = "is-live=true format=time leaky-type=downstream max-time=2000000000 max-bytes=0"
        var launch = "( appsrc name=video \(source) ! rtph264pay name=pay0 pt=96 config-interval=0"
        if audio { launch += " appsrc name=audio \(source) ! rtpmp4gpay name=pay1 pt=97" }
        return launch + " )"
    }

    private let server = Locked<RTSPServer?>(nil)
    private let state: Locked<RTSPStatus>
    let graph: CaptureGraph

    init(graph: CaptureGraph, status: RTSPStatus) {
        self.graph = graph
        state = Locked(status)
        for (tee, name) in [(graph.videoTee, "video"), (graph.audioTee, "audio")] {
            guard let pad = tee?.staticPad("sink") else { continue }
            let capsGiven = Locked(false)
            pad.addProbe(.buffer) { [server] info in
                guard let buffer = info.buffer, let target = server.withLock({ $0 }) else { return .ok }
                // The caps are read at the first buffer: only then do they carry the AAC codec data the media's
                // parser needs (without it the media never prerolls).
                if !capsGiven.withLock({ given in defer { given = true }; return given }), let caps = pad.currentCaps {
                    target.setCaps(caps, for: name)
                }
                target.push(buffer, runningTime: info.runningTime(buffer.pts), to: name)
                return .ok
            }
        }
    }

    /// What the server tells the capture graph: its media holds the encoder gate open, and every start asks for a
    /// keyframe.
    var handlers: RTSPServer.Handlers {
        let graph = graph
        return RTSPServer.Handlers(
            mediaStarted: { graph.gate.holdForStreaming() },
            mediaStopped: { graph.gate.releaseForStreaming() },
            clientPlaying: { graph.requestKeyframe() })
    }

    /// The server that receives the streams from now on (nil: none, after a stop).
    func serve(_ newServer: RTSPServer?) {
        server.withLock { $0 = newServer }
    }

    func update(_ change: (inout RTSPStatus) -> Void) {
        state.withLock { change(&$0) }
    }

    var status: RTSPStatus {
        var status = state.withLock { $0 }
        status.clients = server.withLock { $0?.clients } ?? 0
        return status
    }
}
