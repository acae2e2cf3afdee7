import Foundation

/// One channel in `status.channels` (`[[channel]]`; one, `main`, without channel tables): what it records and
/// whether it is recording now.
public struct ChannelStatus: Codable, Sendable, Equatable {
    public var name: String
    public var state: RecorderState
    /// The recording it is writing (absent when idle).
    public var recordingId: String?
    public var cameras: [String]
    public var activeCamera: String
    public var encoder: String
    public var width: Int
    public var height: Int
    public var framerate: Int
    /// What it keeps (finished clips, their bytes, the oldest's time), with several channels; absent with one.
    public var clips: Int?
    public var storedBytes: Int64?
    public var oldestAt: Date?
    /// Its motion and object detection on its picture (each channel runs its own), with several channels; absent with
    /// one (`status.motion` and `status.objects` are the first channel's).
    public var motion: MotionStatus?
    public var objects: ObjectStatus?

    public init(
        name: String, state: RecorderState, recordingId: String?, cameras: [String], activeCamera: String,
        encoder: String, width: Int, height: Int, framerate: Int
    ) {
        (self.name, self.state, self.recordingId, self.cameras) = (name, state, recordingId, cameras)
        (self.activeCamera, self.encoder, self.width, self.height, self.framerate) = (
            activeCamera, encoder, width, height, framerate
        )
    }
}
