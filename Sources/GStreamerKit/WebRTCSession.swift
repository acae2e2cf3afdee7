import CGStreamer
import CWebRTC
import Synchronization

/// One WebRTC viewer (WHEP): a pipeline of its own whose `webrtcbin` answers the viewer's SDP offer and sends what
/// is pushed into it: H.264 as it comes, and AAC decoded and re-encoded as Opus (browsers take no AAC).
public final class WebRTCSession: @unchecked Sendable {
    public enum State: Sendable, Equatable { case connecting, connected, ended }

    private final class StateBox: Sendable {
        let onState: @Sendable (State) -> Void
        init(_ onState: @escaping @Sendable (State) -> Void) { self.onState = onState }
    }

    private let session: OpaquePointer
    private let stopped = Mutex(false)
    private let box: Unmanaged<StateBox>
    /// The SDP answer, with every local ICE candidate in it.
    public let answer: String

    /// Answers `offer`; blocks up to `timeout` milliseconds for ICE gathering (call it off the cooperative pool).
    /// `stun`: "stun://host:port" or nil (host candidates only). `onState`: on a GStreamer thread, must return at once.
    /// `talk`: the offer's Opus is received too (the viewer's microphone), for `setTalk`.
    public init(
        offer: String, audio: Bool, talk: Bool = false, stun: String?, timeoutMs: Int = 3000,
        onState: @escaping @Sendable (State) -> Void
    ) throws {
        GStreamer.initialize()
        let box = Unmanaged.passRetained(StateBox(onState))
        let handlers = ApplWebrtcHandlers(
            state_changed: { user, state in
                let mapped: State =
                    state == APPL_WEBRTC_CONNECTED ? .connected : state == APPL_WEBRTC_ENDED ? .ended : .connecting
                Unmanaged<StateBox>.fromOpaque(user!).takeUnretainedValue().onState(mapped)
            }, user: box.toOpaque())
        var answer: UnsafeMutablePointer<CChar>?
        var error: UnsafeMutablePointer<CChar>?
        guard
            let session = appl_webrtc_session_start(
                offer, audio ? 1 : 0, talk ? 1 : 0, stun, Int32(timeoutMs), handlers, &answer, &error),
            let answer
        else {
            box.release()
            let message = error.map { String(cString: $0) } ?? "cannot answer the offer"
            g_free(error)
            throw GStreamerError(element: "webrtcbin", message: message)
        }
        self.session = session
        self.answer = String(cString: answer)
        g_free(answer)
        self.box = box
    }

    deinit { stop() }

    private func whileRunning<T>(_ body: (OpaquePointer) -> T) -> T? {
        stopped.withLock { stopped in stopped ? nil : body(session) }
    }

    /// The caps of what `push` hands to the appsrc `name` ("video", "audio"); set before the first push.
    public func setCaps(_ caps: Caps, for name: String) {
        whileRunning { appl_webrtc_session_set_caps($0, name, caps.pointer) }
    }

    /// As `RTSPServer.push`: never blocks, safe in a probe.
    @discardableResult
    public func push(_ buffer: BufferView, runningTime: UInt64, to name: String) -> Bool {
        whileRunning { appl_webrtc_session_push($0, name, buffer.pointer, GstClockTime(runningTime)) != 0 } ?? false
    }

    /// Whether audio is sent (on at the start). Off: audio pushes are dropped before decoding; on again: the next
    /// frame starts a fresh decode and encode.
    public func setAudio(_ on: Bool) {
        whileRunning { appl_webrtc_session_set_audio($0, on ? 1 : 0) }
    }

    /// Where the viewer's own sound (decoded, 48 kHz mono S16) goes from now on: an appsrc that stamps it on arrival,
    /// or nowhere. Never blocks.
    public func setTalk(to target: Element?) {
        whileRunning { appl_webrtc_session_set_talk($0, target?.pointer) }
    }

    /// Buffers of the viewer's sound handed to a talk target so far.
    public var talkBuffers: UInt64 { whileRunning { UInt64(appl_webrtc_session_talk_buffers($0)) } ?? 0 }

    /// Posts a message on the session pipeline's bus and says whether it was released at once (it should be: nobody
    /// reads that bus, so every message is dropped and freed as it is posted rather than kept for the session's life).
    public func releasesBusMessages() -> Bool {
        whileRunning { appl_webrtc_session_releases_messages($0) != 0 } ?? false
    }

    /// Stops the pipeline; later calls do nothing. Blocking (a state change).
    public func stop() {
        guard
            stopped.withLock({ stopped in
                defer { stopped = true }
                return !stopped
            })
        else { return }
        appl_webrtc_session_stop(session)
        box.release()
    }
}
