import Foundation

/// A share link: anyone holding `token` may play and download that one clip, without a login, until `expires_at`
/// (the web dashboard serves it at `/s/<token>`). Tokens carry 128 random bits or more.
public struct ShareLink: Codable, Sendable, Equatable {
    public var token: String
    public var recordingId: String
    public var title: String?
    public var createdAt: Date
    public var expiresAt: Date
    /// The link's path on the web dashboard (`/s/<token>`).
    public var url: String

    public init(token: String, recordingId: String, title: String?, createdAt: Date, expiresAt: Date) {
        (self.token, self.recordingId, self.title, self.createdAt, self.expiresAt) = (token, recordingId, title, createdAt, expiresAt)
        url = "/s/" + token
    }
}

/// What `shares` answers: the links that still work, newest first.
public struct ShareList: Codable, Sendable, Equatable {
    public var items: [ShareLink]
    public init(items: [ShareLink]) { self.items = items }
}

/// What `unshare` answers.
public struct UnshareResult: Codable, Sendable, Equatable {
    public var token: String
    public var revoked: Bool
    public init(token: String, revoked: Bool) { (self.token, self.revoked) = (token, revoked) }
}
