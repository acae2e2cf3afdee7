import ApplianceBase
import ApplianceProtocol
import Foundation

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

    /// A valid MP4 followed by a 'free' box of `padding` bytes (sparse on disk), in the recordings folder before the
    /// daemon starts: start-up recovery adopts it as recording `id` and the backup queues it. Its path.
    func placeClipForRecovery(id: String, padding: UInt64) throws -> String {
        let sample = try makeSampleClip()
        defer { try? FileManager.default.removeItem(atPath: sample) }
        let folder = dataDir + "/recordings/2026/01/03"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = "\(folder)/\(id).mp4"
        try FileManager.default.copyItem(atPath: sample, toPath: path)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        handle.seekToEndOfFile()
        let boxSize = UInt32(padding + 8)
        handle.write(
            Data([UInt8(boxSize >> 24), UInt8(boxSize >> 16 & 0xff), UInt8(boxSize >> 8 & 0xff), UInt8(boxSize & 0xff)])
                + Data("free".utf8))
        try handle.truncate(atOffset: handle.offsetInFile + padding)
        try handle.close()
        return path
    }
}
