import ApplianceBase
import ApplianceProtocol
import Foundation

extension MetricsCollector {
    /// Where the clips go: the storage's state, free room, the clips' budget and when loop recording wraps.
    static func storageFamilies(_ s: StatusReport, dataRoot: String) -> [MetricFamily] {
        var families = [
            MetricFamily(
                "appliance_storage_missing", .gauge, "1 while the recordings' storage is not there.",
                value: s.storage.state == .missing ? 1 : 0),
            MetricFamily(
                "appliance_storage_full", .gauge, "1 while retention can free no more space.",
                value: s.storageFull == nil ? 0 : 1),
        ]
        if let free = s.capacity?.freeBytes ?? FileSystemSpace.available(at: dataRoot) {
            families.append(
                MetricFamily(
                    "appliance_storage_free_bytes", .gauge, "Free bytes on the data folder's filesystem.",
                    value: Double(free)))
        }
        if let c = s.capacity {
            families += [
                MetricFamily("appliance_storage_used_bytes", .gauge, "Bytes of clips.", value: Double(c.usedBytes)),
                MetricFamily(
                    "appliance_storage_budget_bytes", .gauge, "Bytes clips may take in all.",
                    value: Double(c.budgetBytes)),
                MetricFamily(
                    "appliance_storage_locked_ratio", .gauge, "Locked bytes over the budget (0 to 1).",
                    value: c.lockedPercent / 100),
            ]
            if let wraps = c.wrapsInS {
                families.append(
                    MetricFamily(
                        "appliance_storage_wrap_seconds", .gauge,
                        "Recording at the recent bitrate, seconds until the oldest unlocked clip is overwritten.",
                        value: wraps))
            }
        }
        return families
    }

    /// The WebDAV backup: on or off, its queue, failures, a pause, the latest upload.
    static func backupFamilies(_ status: BackupStatus?, lastUpload: Date?) -> [MetricFamily] {
        var families = [
            MetricFamily(
                "appliance_backup_enabled", .gauge, "1 when [backup] url is set.", value: status == nil ? 0 : 1)
        ]
        guard let b = status else { return families }
        families += [
            MetricFamily(
                "appliance_backup_queue_depth", .gauge, "Backup jobs waiting or running.",
                value: Double(b.counts.pending + b.counts.running)),
            MetricFamily(
                "appliance_backup_failed_jobs", .gauge, "Backup jobs given up on.", value: Double(b.counts.failed)),
            MetricFamily(
                "appliance_backup_paused", .gauge, "1 while uploads are paused (refused credentials).",
                value: b.paused ? 1 : 0),
        ]
        if let lastUpload {
            families.append(
                MetricFamily(
                    "appliance_backup_last_success_timestamp_seconds", .gauge,
                    "When the latest upload finished (Unix time).", value: lastUpload.timeIntervalSince1970.rounded3))
        }
        return families
    }
}
