import ApplianceProtocol

extension StatusReport {
    /// A status with `cameras` (the first active), a 640x360 x264 picture and nothing else going on: what the
    /// bridge's facts are folded from in these tests.
    static func fixture(state: RecorderState, cameras: [String]) -> StatusReport {
        StatusReport(
            state: state, ready: true, recording: nil, cameras: cameras, activeCamera: cameras.first ?? "",
            cameraSources: [:], audioSource: "test", preview: "none", encoder: "x264", width: 640, height: 360,
            framerate: 30, dataDir: "/tmp", uptimeS: 1, recordingsThisRun: 0, lastError: nil, gstreamerVersion: "1.22",
            recordingsTotal: 0, databaseBytes: 0, recovery: nil,
            output: OutputStats(frames: 0, slotCollisions: 0, filledSlots: 0, missingSlots: 0, missingAtEncoder: 0),
            storage: StorageStatus(state: .ok, recordingsDir: "/tmp/r"))
    }
}
