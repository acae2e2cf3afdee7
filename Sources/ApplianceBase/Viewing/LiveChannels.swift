import ApplianceProtocol

/// Every channel's live picture and WebRTC sessions, the first channel's first: what the live page's grid, the
/// snapshot URI and WHEP serve with `?channel=NAME` (none: the first).
///
/// As `WHEPSessions` it is every channel's sessions at once: an offer goes to the first channel's (or, through
/// `answer(offer:sound:channel:)`, to the one named), and a session's id says whose it is (the first channel's ids
/// are its own, another's are prefixed with the channel's place and a dot, which a base64url id never holds), so
/// its sound, Talk and end reach the right one. As `LiveFrames` it watches the first channel and counts every
/// channel's viewers.
public struct LiveChannels: WHEPSessions, LiveFrames {
    public struct Channel: Sendable {
        public let name: String
        public let live: any LiveFrames
        public let webrtc: any WHEPSessions

        public init(name: String, live: any LiveFrames, webrtc: any WHEPSessions) {
            (self.name, self.live, self.webrtc) = (name, live, webrtc)
        }
    }

    public let all: [Channel]

    /// `first` is the channel `/live.mjpeg` and `/api/whep` serve without `?channel=`.
    public init(first: Channel, others: [Channel] = []) { all = [first] + others }

    public var names: [String] { all.map(\.name) }

    /// The channel called `name`; nil: the first.
    public func channel(_ name: String?) -> Channel? {
        guard let name else { return all[0] }
        return all.first { $0.name == name }
    }

    // MARK: LiveFrames (the first channel's picture; every channel's viewers)

    public var viewerCount: Int { all.reduce(0) { $0 + $1.live.viewerCount } }
    public func watch() -> (id: UInt64, frames: AsyncStream<LiveFrame>) { all[0].live.watch() }
    public func stop(_ id: UInt64) { all[0].live.stop(id) }

    // MARK: WHEPSessions (every channel's)

    public var count: Int { all.reduce(0) { $0 + $1.webrtc.count } }

    public func answer(offer: String, sound: Bool) async throws(ApplianceError) -> WHEPAnswer {
        try await answer(offer: offer, sound: sound, channel: nil)
    }

    /// Answers an offer with a session of the channel called `channel` (nil: the first); `not_found` for a name
    /// that is none of them.
    public func answer(offer: String, sound: Bool, channel: String?) async throws(ApplianceError) -> WHEPAnswer {
        let place = channel.map { name in all.firstIndex { $0.name == name } } ?? 0
        guard let place else {
            throw ApplianceError(
                .notFound, "no channel '\(channel ?? "")': the channels are \(names.joined(separator: ", "))")
        }
        let answer = try await all[place].webrtc.answer(offer: offer, sound: sound)
        return place == 0 ? answer : WHEPAnswer(id: "\(place).\(answer.id)", sdp: answer.sdp)
    }

    public func setSound(_ id: String, on: Bool) async throws(ApplianceError) {
        let (sessions, own) = try owner(of: id)
        try await sessions.setSound(own, on: on)
    }

    public func setTalk(_ id: String, on: Bool) async throws(ApplianceError) {
        let (sessions, own) = try owner(of: id)
        try await sessions.setTalk(own, on: on)
    }

    public func end(_ id: String) async throws(ApplianceError) {
        let (sessions, own) = try owner(of: id)
        try await sessions.end(own)
    }

    /// The sessions a WHEP id belongs to, and the id they know it by.
    private func owner(of id: String) throws(ApplianceError) -> (any WHEPSessions, String) {
        guard let dot = id.firstIndex(of: ".") else { return (all[0].webrtc, id) }
        guard let place = Int(id[..<dot]), place > 0, place < all.count else {
            throw ApplianceError(.notFound, "no WebRTC session \(id)")
        }
        return (all[place].webrtc, String(id[id.index(after: dot)...]))
    }
}
