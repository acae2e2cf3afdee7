import ApplianceBase
import ApplianceProtocol
import Engine
import SystemCalls

extension MetricsCollector {
    /// What tells whether the daemon lasts: the heap it holds (a leak grows it) and what the recording files wrote
    /// (fragments, and the syncs after them).
    static func lastingFamilies(_ files: FragmentCounters) -> [MetricFamily] {
        [
            MetricFamily(
                "appliance_heap_bytes", .gauge,
                "Bytes held from malloc now (glibc mallinfo2, every arena): what a leak grows.",
                value: Double(LinuxQueries.heapInUse)),
            MetricFamily(
                "appliance_file_fragments_total", .counter,
                "Fragments written whole to recording files (each indexed by its moof).", value: Double(files.fragments)
            ),
            MetricFamily(
                "appliance_file_syncs_total", .counter,
                "fsyncs of recording files after a whole fragment (one per sync_interval_s of media).",
                value: Double(files.syncs)),
            MetricFamily(
                "appliance_file_track_starts_unwritten_total", .counter,
                "Fragments whose track start (audio after video) could not be written into them; 0 expected.",
                value: Double(files.unpatched)),
            MetricFamily(
                "appliance_file_keyframes_unindexed_total", .counter,
                """
                Keyframes an encoder made sooner than sync_interval_s after the one before, written as ordinary \
                frames.
                """,
                value: Double(files.unindexedKeyframes)),
        ]
    }
}
