import ApplianceProtocol
import Foundation

/// The one human line that says what the appliance is doing, as systemd shows it (`systemctl status`:
/// "recording 00:12:34 · front · 41 GB free, wraps in 6 h") and any other short display may.
public enum StatusLine {
    public static func make(_ s: StatusReport, stall: String? = nil) -> String {
        var parts: [String] = []
        if let stall { parts.append("STALLED: \(stall)") }
        switch s.state {
        case .recording:
            var text = "recording " + clock(ms: s.recording?.elapsedMs ?? 0)
            if let segment = s.recording?.segment { text += " (segment \(segment))" }
            parts.append(text)
        case .stopping: parts.append("saving the recording")
        case .idle: parts.append(s.ready ? "idle" : "starting")
        }
        if !s.activeCamera.isEmpty { parts.append(s.activeCamera) }
        if s.storage.state == .missing {
            parts.append("STORAGE MISSING")
        } else if let full = s.storageFull {
            parts.append("STORAGE FULL: \(full)")
        } else if let c = s.capacity {
            parts.append(
                c.wrapsIn.map { "\(gigabytes(c.freeBytes)) free, wraps in \($0)" } ?? "\(gigabytes(c.freeBytes)) free")
        }
        return parts.joined(separator: " · ")
    }

    /// 754_000 → "00:12:34"
    package static func clock(ms: Int) -> String {
        let s = max(0, ms) / 1000
        return String(format: "%02d:%02d:%02d", s / 3600, (s / 60) % 60, s % 60)
    }

    /// Whole gigabytes (decimal, as disks are sold) above 10 GB, one decimal below.
    static func gigabytes(_ bytes: Int64) -> String {
        let gb = Double(bytes) / 1e9
        return gb >= 10 ? "\(Int(gb)) GB" : String(format: "%.1f GB", gb)
    }
}
