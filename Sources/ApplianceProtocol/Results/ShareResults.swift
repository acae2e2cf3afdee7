import Foundation

/// A share link: anyone holding `token` may play and download that one clip, without a login, until `expires_at`
/// (the web dashboard serves it at `/s/<token>`). Tokens carry 256 random bits. The device keeps only a hash of the
/// token, so the token and the URL are in the answer that makes the link and nowhere after; lists name a link by
/// its `id` (the first 16 hex digits of the hash), which revokes it too.
public struct ShareLink: Codable, Sendable, Equatable {
    public var id: String
    public var token: String?
    public var recordingId: String
    public var title: String?
    public var createdAt: Date
    public var expiresAt: Date
    /// The link's path on the web dashboard (`/s/<token>`), when the token is known.
    public var url: String?

    public init(id: String, token: String? = nil, recordingId: String, title: String?, createdAt: Date, expiresAt: Date)
    {
        (self.id, self.token, self.recordingId, self.title, self.createdAt, self.expiresAt) = (
            id, token, recordingId, title, createdAt, expiresAt
        )
        url = token.map { "/s/" + $0 }
    }

    /// Whether `text` is a link's id (16 hex digits) rather than its token (43 characters of base64url).
    public static func isID(_ text: String) -> Bool {
        text.count == idLength && text.allSatisfy { $0.isASCII && $0.isHexDigit }
    }

    /// The hex digits of the token's hash an id keeps.
    public static let idLength = 16
}

/// What `shares` answers: the links that still work, newest first.
public struct ShareList: Codable, Sendable, Equatable {
    public var items: [ShareLink]
    public init(items: [ShareLink]) { self.items = items }
}

/// What `unshare` answers.
public struct UnshareResult: Codable, Sendable, Equatable {
    /// The revoked link's id.
    public var id: String
    public var revoked: Bool
    public init(id: String, revoked: Bool) { (self.id, self.revoked) = (id, revoked) }
}
