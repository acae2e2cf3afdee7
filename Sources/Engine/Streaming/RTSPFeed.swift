import ApplianceBase
import ApplianceProtocol
import GStreamerKit

/// `[rtsp]`'s side of the live feed: the server's media gets the encoded streams while it exists, holds the encoder
/// gate open meanwhile, and every client's PLAY asks for a keyframe, so a viewer waits at most a frame, not a GOP.
package final class RTSPFeed: Sendable {
    /// The media's launch description: one `appsrc` per stream, named as the feed pushes them. The encoded tees
    /// carry parsed, AU-aligned H.264 and AAC with their caps, so nothing is parsed again. The payloader inserts no
    /// SPS/PPS of its own (`config-interval=0`): the encoder's parser already puts them in every keyframe, and a
    /// second copy made ffmpeg (Frigate's and go2rtc's reader) split each keyframe in two packets.
    package static func launch(audio: Bool) -> String {
        let source = "is-live=true format=time leaky-type=downstream max-time=2000000000 max-bytes=0"
        var launch = "( appsrc name=video \(source) ! rtph264pay name=pay0 pt=96 config-interval=0"
        if audio { launch += " appsrc name=audio \(source) ! rtpmp4gpay name=pay1 pt=97" }
        return launch + " )"
    }

    private let server = Locked<(server: RTSPServer, key: Int)?>(nil)
    /// The name the stream goes by in the server's mounts (the channel's, for `/live/NAME`).
    package let name: String
    private let state: Locked<RTSPStatus>
    package let feed: LiveFeed

    package init(feed: LiveFeed, status: RTSPStatus, name: String = "") {
        self.feed = feed
        self.name = name
        state = Locked(status)
    }

    /// The server's mount at `path` for this stream: its media holds the encoder gate open while it exists, and each
    /// PLAY asks for a keyframe (as `handlers`).
    package func mount(path: String) -> RTSPServer.Mount {
        let handlers = self.handlers
        return RTSPServer.Mount(
            path: path, launch: Self.launch(audio: feed.hasAudio), mediaStarted: handlers.mediaStarted,
            mediaStopped: handlers.mediaStopped, clientPlaying: handlers.clientPlaying)
    }

    /// What the server tells the capture graph: its media holds the encoder gate open, and every PLAY asks for a
    /// keyframe (none at the media's start: preroll needs a buffer of each stream, not a keyframe, and frames before
    /// PLAY never reach the client).
    package var handlers: RTSPServer.Handlers {
        let graph = feed.graph
        return RTSPServer.Handlers(
            mediaStarted: { graph.gate.holdForStreaming() },
            mediaStopped: { graph.gate.releaseForStreaming() },
            clientPlaying: { graph.requestKeyframe() })
    }

    /// The server that receives the streams from now on, into its `mounts` (nil: none, after a stop).
    package func serve(_ newServer: RTSPServer?, mounts: [Int] = [0]) {
        var entry: (server: RTSPServer, key: Int)?
        if let newServer {
            let key = feed.subscribe(
                .init(
                    setCaps: { caps, name in for mount in mounts { newServer.setCaps(caps, for: name, mount: mount) } },
                    push: { buffer, time, name in
                        for mount in mounts { newServer.push(buffer, runningTime: time, to: name, mount: mount) }
                    }))
            entry = (newServer, key)
        }
        let old = server.withLock { current in
            defer { current = entry }
            return current
        }
        if let old { feed.unsubscribe(old.key) }
    }

    package func update(_ change: (inout RTSPStatus) -> Void) {
        state.withLock { change(&$0) }
    }

    package var status: RTSPStatus {
        var status = state.withLock { $0 }
        status.clients = server.withLock { $0?.server.clients } ?? 0
        return status
    }
}
