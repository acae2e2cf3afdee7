import ApplianceProtocol

/// Where the web front end says how it is doing; `status` reads it (with the live view's viewer count).
public final class FrontEndReporter: Sendable {
    private let state: Locked<WebStatus?>
    private let live: LiveView

    init(web: WebStatus?, live: LiveView) {
        state = Locked(web)
        self.live = live
    }

    public func update(_ change: @Sendable (inout WebStatus) -> Void) {
        state.withLock { status in
            guard var current = status else { return }
            change(&current)
            status = current
        }
    }

    var current: WebStatus? {
        guard var status = state.withLock({ $0 }) else { return nil }
        status.liveViewers = live.viewerCount
        return status
    }
}
