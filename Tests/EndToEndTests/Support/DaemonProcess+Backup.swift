import Foundation

/// Steps the backup tests share.
extension DaemonProcess {
    /// Records a short clip; returns the `record.stop` result.
    func recordClip(seconds: Double = 0.8, title: String = "clip") throws -> [String: Any] {
        _ = try result("record.start", args: ["title": title])
        Thread.sleep(forTimeInterval: seconds)
        return try result("record.stop")
    }

    /// The backup queue's job counts by state.
    func backupCounts() throws -> [String: Int] {
        (try result("backup.status")["counts"] as? [String: Int]) ?? [:]
    }
}
