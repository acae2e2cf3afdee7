import ApplianceProtocol

/// What the web front end needs of WebRTC viewing (WHEP): answer an offer, turn a session's sound on or off, end a
/// session. The engine's `WebRTCViewers` in the daemon; the web's in-process tests give their own.
public protocol WHEPSessions: Sendable {
    /// Open sessions.
    var count: Int { get }
    /// `sound`: whether audio is sent from the start (a WHEP client's default); the live page starts without it.
    func answer(offer: String, sound: Bool) async throws(ApplianceError) -> WHEPAnswer
    func setSound(_ id: String, on: Bool) async throws(ApplianceError)
    /// Talk: the viewer's microphone (sent over its session) to the device's speaker while `on`; one talker at a time.
    func setTalk(_ id: String, on: Bool) async throws(ApplianceError)
    func end(_ id: String) async throws(ApplianceError)
}

/// A session's SDP answer and its id (the WHEP resource is `/api/whep/<id>`).
public struct WHEPAnswer: Sendable {
    public let id: String
    public let sdp: String
    public init(id: String, sdp: String) { (self.id, self.sdp) = (id, sdp) }
}
