import ApplianceBase
import ApplianceProtocol
import Foundation
import GStreamerKit
import Logging
import Settings

/// The dashboard's WebRTC viewers (WHEP, RFC 9725): each POSTed offer gets a session of its own, fed from the live
/// feed (the recording's H.264, its AAC sent as Opus), holding the encoder gate open until it ends. A session ends
/// when the viewer DELETEs it, when its connection fails or closes, or at shutdown.
///
/// A session's sound can be off (the live page's start: browsers play muted until a click): it is then sent no
/// audio at all, which halves what a viewer costs the device (the AAC decode, the Opus encode and 50 packets a
/// second; docs/BENCHMARKS.md) and saves 64 kbit/s.
public final class WebRTCViewers: WHEPSessions {
    private struct Viewer {
        let session: WebRTCSession
        let key: Int
        var connected = false
    }

    private struct State {
        var viewers: [String: Viewer] = [:]
        /// Offers being answered: they hold a place under the limit until they are viewers or refused.
        var answering = 0
    }

    /// How long an answered viewer has to connect (ICE and DTLS) before its session is ended: a page that left while
    /// its offer was being answered never DELETEs it.
    package static let connectTimeout = Duration.seconds(15)

    private let state = Locked(State())
    private let feed: LiveFeed
    private let limit: Int
    private let stun: String?
    private let logger: Logger
    /// The speaker a viewer may talk through (nil: none, and sessions do not receive sound).
    private let speaker: Speaker?

    package init(feed: LiveFeed, web: ApplianceConfig.Web, speaker: Speaker? = nil, logger: Logger) {
        self.feed = feed
        self.speaker = speaker
        limit = web.webrtcViewers
        stun = web.stun.isEmpty ? nil : web.stun
        self.logger = logger
    }

    /// Viewers now.
    public var count: Int { state.withLock { $0.viewers.count } }

    /// Answers a viewer's offer. Refused (`unavailable`) when WebRTC is off or at the limit, `bad_request` when the
    /// offer cannot be answered (no H.264 in it, not SDP).
    public func answer(offer: String, sound: Bool) async throws(ApplianceError) -> WHEPAnswer {
        guard limit > 0 else { throw ApplianceError(.unavailable, "WebRTC is off ([web] webrtc_viewers = 0)") }
        let admitted = state.withLock { s in
            guard s.viewers.count + s.answering < limit else { return false }
            s.answering += 1
            return true
        }
        guard admitted else {
            throw ApplianceError(.unavailable, "\(limit) WebRTC viewers already watch ([web] webrtc_viewers)")
        }
        let id = RandomToken.make(bytes: 12)
        let graph = feed.graph
        graph.gate.holdForStreaming()
        let session: WebRTCSession
        do {
            let (audio, stun, talk) = (feed.hasAudio, stun, speaker != nil)
            session = try await blocking {
                try WebRTCSession(offer: offer, audio: audio, talk: talk, stun: stun) { [weak self] state in
                    switch state {
                    case .connected:
                        self?.markConnected(id)
                        graph.requestKeyframe()
                    case .ended: self?.endLater(id)
                    case .connecting: break
                    }
                }
            }
        } catch {
            state.withLock { $0.answering -= 1 }
            graph.gate.releaseForStreaming()
            throw ApplianceError(.badRequest, "cannot answer the offer: \(error)")
        }
        session.setAudio(sound)
        let key = feed.subscribe(
            .init(
                setCaps: { session.setCaps($0, for: $1) },
                push: { session.push($0, runningTime: $1, to: $2) }))
        let viewers = state.withLock { s in
            s.answering -= 1
            s.viewers[id] = Viewer(session: session, key: key)
            return s.viewers.count
        }
        graph.requestKeyframe()
        logger.info(
            "WebRTC viewer joined",
            metadata: ["viewer": "\(id)", "viewers": "\(viewers)", "sound": "\(sound ? "on" : "off")"])
        Task { [weak self] in
            try? await Task.sleep(for: Self.connectTimeout)
            self?.endIfNeverConnected(id)
        }
        return WHEPAnswer(id: id, sdp: session.answer)
    }

    /// Turns a viewer's sound on or off. `not_found` when there is no session by that id.
    public func setSound(_ id: String, on: Bool) async throws(ApplianceError) {
        guard let session = state.withLock({ $0.viewers[id]?.session }) else {
            throw ApplianceError(.notFound, "no WebRTC session \(id)")
        }
        session.setAudio(on)
    }

    /// Talk: while `on`, the viewer's microphone (its session's received Opus, decoded) plays on the speaker.
    /// `unavailable` without a speaker, `conflict` while another viewer talks, `not_found` for no such session.
    public func setTalk(_ id: String, on: Bool) async throws(ApplianceError) {
        guard let speaker else { throw ApplianceError(.unavailable, "there is no speaker to talk through ([speaker])") }
        guard let session = state.withLock({ $0.viewers[id]?.session }) else {
            throw ApplianceError(.notFound, "no WebRTC session \(id)")
        }
        if on {
            session.setTalk(to: try await speaker.startTalk(id))
            logger.info("WebRTC viewer talks", metadata: ["viewer": "\(id)"])
        } else {
            session.setTalk(to: nil)
            await speaker.endTalk(id)
        }
    }

    /// Ends a viewer's session (its DELETE). `not_found` when there is none by that id.
    public func end(_ id: String) async throws(ApplianceError) {
        guard let viewer = remove(id) else { throw ApplianceError(.notFound, "no WebRTC session \(id)") }
        await speaker?.endTalk(id)
        _ = try? await blocking { viewer.session.stop() }
    }

    /// Ends every session (shutdown). Blocking: state changes.
    package func endAll() {
        let all = state.withLock { s in
            defer { s.viewers = [:] }
            return Array(s.viewers.values)
        }
        for viewer in all {
            feed.unsubscribe(viewer.key)
            feed.graph.gate.releaseForStreaming()
            viewer.session.stop()
        }
    }

    private func remove(_ id: String, unless keep: (Viewer) -> Bool = { _ in false }) -> Viewer? {
        let removed = state.withLock { s -> (Viewer, Int)? in
            guard let viewer = s.viewers[id], !keep(viewer) else { return nil }
            s.viewers[id] = nil
            return (viewer, s.viewers.count)
        }
        guard let (viewer, left) = removed else { return nil }
        feed.unsubscribe(viewer.key)
        feed.graph.gate.releaseForStreaming()
        logger.info("WebRTC viewer left", metadata: ["viewer": "\(id)", "viewers": "\(left)"])
        return viewer
    }

    private func markConnected(_ id: String) {
        state.withLock { $0.viewers[id]?.connected = true }
    }

    /// The connection failed or closed (reported on a GStreamer thread): the session goes, off that thread.
    private func endLater(_ id: String) {
        BlockingPool.shared.submit { [weak self] _ in
            self?.remove(id)?.session.stop()
        }
        if let speaker { Task { await speaker.endTalk(id) } }  // a talker whose connection dropped lets the speaker go
    }

    private func endIfNeverConnected(_ id: String) {
        guard let viewer = remove(id, unless: \.connected) else { return }
        logger.info("WebRTC viewer never connected: session ended", metadata: ["viewer": "\(id)"])
        BlockingPool.shared.submit { _ in viewer.session.stop() }
    }
}
