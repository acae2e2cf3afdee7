import ApplianceBase
import ApplianceProtocol

/// Where the web front end says how it is doing; `status` reads it (with the live view's and WebRTC's viewer counts).
public final class FrontEndReporter: Sendable {
    private let state: Locked<WebStatus?>
    private let live: any LiveFrames
    private let webrtc: (any WHEPSessions)?

    public init(web: WebStatus?, live: any LiveFrames, webrtc: (any WHEPSessions)? = nil) {
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
