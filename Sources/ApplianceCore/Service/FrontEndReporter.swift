import ApplianceProtocol
import ApplianceBase
import Engine

/// Where the web front end says how it is doing; `status` reads it (with the live view's viewer count).
public final class FrontEndReporter: Sendable {
    private let state: Locked<WebStatus?>
    private let live: LiveView
    private let webrtc: WebRTCViewers?

    init(web: WebStatus?, live: LiveView, webrtc: WebRTCViewers? = nil) {
        state = Locked(web)
        (self.live, self.webrtc) = (live, webrtc)
    }

    public func update(_ change: @Sendable (inout WebStatus) -> Void) {
        state.withLock { status in
            guard var current = status else { return }
            change(&current)
            status = current
        }
    }

    public var current: WebStatus? {
        guard var status = state.withLock({ $0 }) else { return nil }
        status.liveViewers = live.viewerCount
        status.webrtcViewers = webrtc?.count ?? 0
        return status
    }
}
