import ApplianceBase
import ApplianceProtocol
import Foundation
import GStreamerKit
import ServiceLifecycle

/// Keeps the preview's textoverlay (`CaptureGraph.previewOverlay`) saying what `PreviewOverlayText` says: it follows
/// the event stream (recording started and stopped, camera switched or failed) and, only while recording, redraws
/// once a second as the elapsed time moves on. Idle, the text is empty and textoverlay passes frames through.
/// Setting the element's `text` takes textoverlay's own lock for a moment; no streaming thread waits for this loop.
package final class PreviewOverlay: Service, CustomStringConvertible {
    package var description: String { "PreviewOverlay" }

    package struct State: Sendable, Equatable {
        /// When the recording started (monotonic); nil while idle.
        package var recordingSince: ContinuousClock.Instant?
        package var camera: String?

        package init(recordingSince: ContinuousClock.Instant? = nil, camera: String? = nil) {
            self.recordingSince = recordingSince
            self.camera = camera
        }
    }

    private let element: Element
    private let subscription: EventHub.Subscription
    private let events: EventHub
    private let state: Locked<State>
    private let wake = WakeSignal()

    /// Subscribes at once, so nothing published before the service group runs (an autostarted recording) is missed.
    /// `camera`: the camera active now (its `camera_switched` was published before this existed).
    package init(element: Element, events: EventHub, camera: String?) {
        self.element = element
        self.events = events
        subscription = events.subscribe()
        state = Locked(State(camera: camera))
    }

    package func run() async throws {
        await runSideBySide({ await self.follow() }, { await self.draw() })
        events.unsubscribe(subscription.id)
    }

    /// Applies each event to the state and wakes the drawing loop.
    private func follow() async {
        for await record in subscription.events {
            guard Self.apply(record.event, to: state) else { continue }
            wake.signal()
        }
    }

    /// Sets the text whenever it changes: on a wake-up, and while recording on each new second of elapsed time.
    private func draw() async {
        var shown = ""  // the element is made with no text
        while !Task.isCancelled {
            let now = ContinuousClock.now
            let s = state.withLock { $0 }
            var next: ContinuousClock.Instant?
            var elapsed: Int?
            if let since = s.recordingSince {
                let seconds = max(0, (now - since) / .seconds(1))
                elapsed = Int(seconds)
                next = since + .seconds(Double(Int(seconds) + 1))
            }
            let text = PreviewOverlayText.markup(elapsedSeconds: elapsed, camera: s.camera)
            if text != shown {
                element.set("text", text)
                shown = text
            }
            await wake.wait(until: next)
        }
    }

    /// Updates `state` for one event; returns whether anything changed.
    package static func apply(_ event: ApplianceEvent, to state: Locked<State>) -> Bool {
        state.withLock { s in
            let before = s
            switch event {
            case .recordingStarted(let started):
                // Counted from the recording's own start: the event may be read a moment later.
                let late = max(0, Date().timeIntervalSince(started.createdAt))
                s.recordingSince = ContinuousClock.now - .seconds(min(late, 5))
            case .recordingStopped:
                s.recordingSince = nil
            case .cameraSwitched(let switched):
                s.camera = switched.to
            case .cameraFailed(let failure) where failure.camera == s.camera:
                s.camera = nil  // the filler shows until another camera takes over
            default:
                break
            }
            return s != before
        }
    }
}
