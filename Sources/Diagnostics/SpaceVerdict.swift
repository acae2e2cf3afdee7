import ApplianceBase
import Foundation

/// Free space judged against `[storage] min_free_mb` and the configured bitrate. Retention deletes the oldest
/// clips to keep min_free_mb free, so a card full of clips is a dashcam's normal state: the room to record is the
/// free space plus the clips already in the data folder (counting locked clips too, so it is an upper bound).
struct SpaceVerdict: Equatable, Sendable {
    var status: DoctorCheck.Status
    var detail: String
    var fix: String?

    /// One hour of recording at the configured rate is the least a device should be able to hold.
    static let comfortableSeconds = 3600.0

    static func judge(freeBytes: Int64, clipBytes: Int64, totalBytes: Int64?, minFreeMb: Int, bitrateKbps: Int)
        -> SpaceVerdict
    {
        let minFree = Int64(minFreeMb) * 1_000_000
        let room = freeBytes + clipBytes
        let bytesPerSecond = Double(max(1, bitrateKbps)) * 1000 / 8
        let seconds = Double(max(0, room - minFree)) / bytesPerSecond
        var detail = "\(bytes(freeBytes)) free" + (totalBytes.map { " of \(bytes($0))" } ?? "")
        if clipBytes > 0 { detail += ", \(bytes(clipBytes)) of clips retention may delete" }
        detail += ", room for \(duration(seconds)) at \(bitrateKbps) kbit/s"
        let fix = "free space or use bigger storage (or lower [storage] min_free_mb or [video] bitrate_kbps)"
        if room < minFree {
            return SpaceVerdict(
                status: .fail, detail: detail + "; under [storage] min_free_mb = \(minFreeMb): recording stops",
                fix: fix)
        }
        if room < 2 * minFree {
            return SpaceVerdict(
                status: .warn, detail: detail + "; under twice [storage] min_free_mb = \(minFreeMb)", fix: fix)
        }
        if seconds < comfortableSeconds {
            return SpaceVerdict(status: .warn, detail: detail + "; less than an hour of recording", fix: fix)
        }
        return SpaceVerdict(status: .pass, detail: detail, fix: nil)
    }

    /// "79.3 GB", "512 MB" (decimal, as min_free_mb is).
    static func bytes(_ value: Int64) -> String {
        value >= 1_000_000_000 ? String(format: "%.1f GB", Double(value) / 1e9) : "\(value / 1_000_000) MB"
    }

    /// "42 h", "17 min".
    static func duration(_ seconds: Double) -> String {
        seconds >= 2 * 3600 ? "\(Int(seconds / 3600)) h" : "\(Int(seconds / 60)) min"
    }
}
