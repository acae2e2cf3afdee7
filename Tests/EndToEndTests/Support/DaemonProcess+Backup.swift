import ApplianceProtocol
import Foundation
import ApplianceBase

/// Steps the backup tests share.
extension DaemonProcess {
    /// Records a short clip; returns the `record.stop` result.
    func recordClip(seconds: Double = 0.8, title: String = "clip") throws -> RecordingResult {
        _ = try recordStart(title: title)
        Thread.sleep(forTimeInterval: seconds)
        return try recordStop()
    }

    /// The backup queue's job counts by state.
    func backupCounts() throws -> BackupCounts {
        try backupStatus().counts
    }
}
