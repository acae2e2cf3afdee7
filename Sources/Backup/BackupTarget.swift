import Foundation

/// Where the queue's uploads go: a WebDAV folder or an S3 bucket. Paths are the layout's, relative to the
/// configured folder or prefix ("2026/11/21/name_id.mp4").
protocol BackupTarget: Sendable {
    /// Puts the file at `path` whole: under that name only once all of it is there and checked.
    func store(
        file: String, size: Int64, at path: String, resume: UploadResume, rateKbps: Int,
        progress: @escaping @Sendable (Int64) -> Void) async throws
    /// Puts small data (a thumbnail, a sidecar) at `path`, whole.
    func store(data: Data, at path: String) async throws
    /// Removes a recording's objects (`layout`) and whatever an interrupted upload of them left.
    func remove(_ layout: RemoteLayout) async throws
    /// The bucket (or folder) is there now: lifts a pause on a missing one.
    func exists() async -> Bool
}

/// Where an upload stands on the server, kept in the queue's row so that a restart goes on from there (an S3
/// multipart upload's id and finished parts); WebDAV has nothing to keep.
struct UploadResume: Sendable {
    /// What the last try saved (nil: start afresh).
    var saved: String?
    /// Saves it (nil: the upload is over).
    var save: @Sendable (String?) async throws -> Void
    /// Tells the log how the upload goes on (resumed, started again).
    var note: @Sendable (String) -> Void = { _ in }

    static let none = UploadResume(saved: nil, save: { _ in })
}
