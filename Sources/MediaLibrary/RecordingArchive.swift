import ApplianceProtocol

/// Whoever keeps copies of recordings elsewhere (the backup): told when a recording is finished, or locked under
/// `only_locked`, and when one is deleted by a command. The recording engine announces through this and never
/// names the backup, so the GStreamer layer builds without the HTTP, TLS and signing the uploads need.
public protocol RecordingArchive: Sendable {
    /// A recording was saved (or locked): queue its copy.
    func recordingFinished(_ id: String) async
    /// A recording is being deleted: stop its copy and queue the removal of what already left the device.
    func recordingDeleted(_ recording: Recording) async
}
