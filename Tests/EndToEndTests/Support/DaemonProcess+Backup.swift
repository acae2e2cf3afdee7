import ApplianceProtocol
import Foundation
import ApplianceBase

/// Steps the backup tests share.
extension DaemonProcess {
    /// Records a clip of `seconds` of video; returns the `record.stop` result.
    func recordClip(seconds: Double = 0.8, title: String = "clip") throws -> RecordingResult {
        _ = try recordStart(title: title)
        try waitUntilRecorded(seconds)
        return try recordStop()
    }

    /// The backup queue's job counts by state.
    func backupCounts() throws -> BackupCounts {
        try backupStatus().counts
    }
}
