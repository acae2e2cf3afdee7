import ApplianceProtocol
import Foundation
import Mp4

/// Read-only lookups of media files by id, for front ends that serve them (the web dashboard). Clients name clips
/// by id only: every path returned is one the appliance wrote, never one built from a client's text.
public protocol MediaFiles: Sendable {
    /// The recording with exactly this id (no prefixes: URLs name whole ids), or nil.
    func recording(id: String) async throws -> Recording?
    /// The share link for `token` if it still works.
    func share(token: String) async throws -> ShareLink?
    /// A snapshot's file, if `id` is a snapshot's id and its file exists.
    func snapshotPath(id: String) -> String?
    /// Every channel's name, the first first: the timeline's rows, and what a range video may name.
    var channels: [String] { get }
    /// One video of what was recorded from `from` to `to` by `channel` (nil: the first; one video holds one
    /// picture), built from the finished files over that range; throws when nothing playable was recorded then.
    func rangeVideo(from: Date, to: Date, channel: String?) async throws -> RangeVideo
    /// A clip's scrubbing previews, in order; empty when it has none.
    func scrubPreviews(id: String) async throws -> [ScrubPreview]
    /// The JPEG of a clip's preview number `index`.
    func scrubJPEG(id: String, index: Int) -> Data?
    /// The preview shown for a moment: the last one taken at or before it in the file `channel` (nil: the first)
    /// recorded then. Nil when nothing was recorded then, or that file has no previews.
    func scrubJPEG(at moment: Date, channel: String?) async throws -> (jpeg: Data, recordingId: String, takenAt: Date)?
    /// When the last clip finished uploading, if any did.
    func lastBackup() async throws -> Date?
}

/// One of a clip's scrubbing previews, as the web layer lists them.
public struct ScrubPreview: Sendable, Equatable {
    public let index: Int
    /// Seconds from the clip's first frame.
    public let offsetS: Double

    public init(index: Int, offsetS: Double) { (self.index, self.offsetS) = (index, offsetS) }
}
