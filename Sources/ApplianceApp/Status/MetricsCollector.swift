import Accounts
import ApplianceBase
import ApplianceProtocol
import Backup
import Engine
import Foundation
import MediaLibrary
import Supervision

/// Builds `metrics` from what each domain owns, the way `StatusReporter` builds `status`: frames in (per camera)
/// and out, dropped frames, the recording and its A/V offset, loop recording's seams, storage, backup, camera
/// states, stalls and the watchdog, uptime and restarts. Prometheus names: `appliance_…`, counters end in
/// `_total`, times in seconds, sizes in bytes.
struct MetricsCollector: Sendable {
    let status: StatusReporter
    let data: DataDirectory
    let library: Library
    let graph: CaptureGraph
    let recorder: Recorder
    let cameras: CameraSwitcher
    let backup: BackupUploader?
    let liveness: LivenessMonitor
    let runs: DaemonRuns
    /// Credential checks at every door (web, RTSP, ONVIF).
    let guesses: GuessLedger
    /// When the daemon started, by the monotonic clock.
    let started: ContinuousClock.Instant

    func metrics() async -> MetricsReport {
        let s = await status.status()
        let boundaries = await recorder.boundaries
        let cameraStates = await cameras.report(devices: []).cameras
        let backupStatus = await backup?.status()
        let lastUpload = backup == nil ? nil : try? await library.lastBackupAt()
        let seen = liveness.state.withLock { $0 }
        var families = daemonFamilies(s)
        families += Self.frameFamilies(graph)
        families += Self.recordingFamilies(s)
        families += Self.lastingFamilies(graph.fragmentCounters)
        families += Self.detectionFamilies(motion: graph.motion, sound: graph.sound, objects: graph.objects)
        families += Self.libraryFamilies(s, seams: boundaries)
        families += Self.storageFamilies(s, dataRoot: data.root)
        families += Self.backupFamilies(backupStatus, lastUpload: lastUpload)
        families += Self.supervisionFamilies(cameraStates, seen: seen, busTurns: graph.busReader.heartbeat)
        families += Self.networkFamilies(s)
        families += Self.credentialFamilies(guesses.counts)
        return MetricsReport(families: families)
    }

    /// Version, encoder, readiness, uptime and restarts.
    private func daemonFamilies(_ s: StatusReport) -> [MetricFamily] {
        var f = MetricFamilyList()
        f.add(
            "appliance_info", .gauge, "Version, GStreamer version and encoder; always 1.",
            [
                MetricSample(
                    1, ["version": ApplianceVersion.current, "gstreamer": s.gstreamerVersion, "encoder": s.encoder])
            ])
        if let choice = s.encoderChoice {
            f.add(
                "appliance_encoder_info", .gauge,
                """
                The H.264 encoder in use: its element, fragment and how it was chosen (pinned, trial, cached); \
                always 1.
                """,
                [MetricSample(1, ["element": choice.element, "encoder": choice.encoder, "how": choice.how.rawValue])])
        }
        f.add(
            "appliance_ready", .gauge, "1 once the socket answers and the first frame has passed the camera selector.",
            s.ready ? 1 : 0)
        f.add(
            "appliance_uptime_seconds", .gauge, "Seconds since this daemon started.",
            (ContinuousClock.now - started).seconds.rounded3)
        f.add(
            "appliance_starts_total", .counter, "Daemon starts on this data folder, this one included.",
            Double(runs.starts))
        f.add(
            "appliance_unclean_exits_total", .counter,
            "Runs on this data folder that ended without a clean stop (crash, kill, watchdog abort, power loss).",
            Double(runs.uncleanExits))
        return f.families
    }

    /// Frames in (per source), out, dropped and repeated.
    private static func frameFamilies(_ graph: CaptureGraph) -> [MetricFamily] {
        var f = MetricFamilyList()
        let flow = graph.flow.snapshot
        f.add(
            "appliance_frames_in_total", .counter,
            "Frames each source delivered to the camera selector (filler: the black stand-in).",
            (graph.cameras + [graph.filler]).map { MetricSample(Double($0.framesIn), ["camera": $0.name]) })
        f.add(
            "appliance_camera_frames_repeated_total", .counter,
            """
            Frames each camera's rate keeper repeated because the camera's next frame was late (a camera slower \
            than the configured rate).
            """,
            graph.cameras.map { MetricSample(Double($0.framesRepeated), ["camera": $0.name]) })
        f.add(
            "appliance_frames_out_total", .counter, "Frames that left the camera selector on the output clock.",
            Double(flow.outputFrames))
        f.add(
            "appliance_frames_dropped_total", .counter,
            """
            Frames lost: slot_taken (a frame for a slot already filled), empty_slot (a stall left a slot empty), \
            encoder_gap (missing at the encoder while recording).
            """,
            [
                MetricSample(Double(flow.slotCollisions), ["reason": "slot_taken"]),
                MetricSample(Double(flow.missingSlots), ["reason": "empty_slot"]),
                MetricSample(Double(flow.encoderMissing), ["reason": "encoder_gap"]),
            ])
        f.add(
            "appliance_frames_repeated_total", .counter, "Output slots filled by repeating the last frame.",
            Double(flow.filledSlots))
        return f.families
    }

    /// The recorder's state and the recording in progress.
    private static func recordingFamilies(_ s: StatusReport) -> [MetricFamily] {
        var f = MetricFamilyList()
        f.add(
            "appliance_recorder_state", .gauge, "1 for the recorder's current state.",
            [RecorderState.idle, .recording, .stopping].map {
                MetricSample($0 == s.state ? 1 : 0, ["state": $0.rawValue])
            })
        f.add("appliance_recording", .gauge, "1 while recording.", s.state == .recording ? 1 : 0)
        f.add(
            "appliance_recording_elapsed_seconds", .gauge, "Length of the recording in progress (0 when idle).",
            Double(s.recording?.elapsedMs ?? 0) / 1000)
        f.add(
            "appliance_recording_dropped_frames", .gauge, "Frames missing in the recording in progress.",
            Double(s.recording?.droppedFrames ?? 0))
        if let offset = s.recording?.avOffsetMs {
            f.add(
                "appliance_av_offset_seconds", .gauge, "Audio start minus video start of the recording in progress.",
                offset / 1000)
        }
        f.add(
            "appliance_recordings_finished_total", .counter,
            "Files finished by this daemon (each loop segment counts).", Double(s.recordingsThisRun))
        return f.families
    }

    /// The clips in the library and loop recording's seams.
    private static func libraryFamilies(_ s: StatusReport, seams: SegmentBoundaries) -> [MetricFamily] {
        var f = MetricFamilyList()
        f.add("appliance_recordings", .gauge, "Clips in the library.", Double(s.recordingsTotal))
        f.add("appliance_segment_boundaries_total", .counter, "Loop recording seams measured.", Double(seams.count))
        f.add(
            "appliance_segment_boundary_missing_frames_total", .counter, "Frames lost at loop recording seams.",
            Double(seams.missingFrames))
        f.add(
            "appliance_segment_boundary_repeated_frames_total", .counter, "Frames written to two segments at a seam.",
            Double(seams.repeatedFrames))
        f.add(
            "appliance_segment_boundary_largest_gap_seconds", .gauge,
            "Largest gap seen at a seam beyond one frame interval.",
            Double(seams.largestGapNs) / 1e9)
        return f.families
    }

    /// Cameras' states, stalls and the watchdog.
    private static func supervisionFamilies(_ cameras: [CameraReport], seen: LivenessMonitor.State, busTurns: UInt64)
        -> [MetricFamily]
    {
        var f = MetricFamilyList()
        f.add(
            "appliance_camera_state", .gauge, "1 for each camera's current state.",
            cameras.flatMap { camera in
                CameraSlot.stateNames.map {
                    MetricSample(camera.state == $0 ? 1 : 0, ["camera": camera.name, "state": $0])
                }
            })
        f.add(
            "appliance_stalled", .gauge, "1 while output frames or the bus thread stand still.",
            seen.stall == nil ? 0 : 1)
        f.add("appliance_stalls_total", .counter, "Stalls noticed since start.", Double(seen.stalls))
        f.add(
            "appliance_watchdog_pings_total", .counter, "WATCHDOG=1 messages sent to systemd.",
            Double(seen.watchdogPings))
        f.add(
            "appliance_bus_turns_total", .counter,
            "Turns of the GStreamer bus thread (at least ten a second while alive).", Double(busTurns))
        return f.families
    }

    /// MQTT, RTSP and live viewers, for the outputs that are on.
    private static func networkFamilies(_ s: StatusReport) -> [MetricFamily] {
        var f = MetricFamilyList()
        if let mqtt = s.mqtt {
            f.add(
                "appliance_mqtt_connected", .gauge, "1 while the MQTT broker has the connection.",
                mqtt.state == .connected ? 1 : 0)
            f.add(
                "appliance_mqtt_connects_total", .counter, "MQTT connections made since start.", Double(mqtt.connects))
        }
        if let rtsp = s.rtsp {
            f.add("appliance_rtsp_clients", .gauge, "RTSP clients connected now.", Double(rtsp.clients))
        }
        if let web = s.web {
            f.add(
                "appliance_live_viewers", .gauge, "Live views on the web dashboard, by transport.",
                [
                    MetricSample(Double(web.liveViewers), ["transport": "mjpeg"]),
                    MetricSample(Double(web.webrtcViewers), ["transport": "webrtc"]),
                ])
        }
        return f.families
    }
}

extension MetricsCollector {
    /// The guessing ledger's counts: what a fail2ban-style watch of the device looks at.
    static func credentialFamilies(_ counts: GuessLedger.Counts) -> [MetricFamily] {
        var f = MetricFamilyList()
        f.add(
            "appliance_credential_checks_total", .counter,
            """
            Credentials at every door (web, RTSP, ONVIF): passed and failed checks, and attempts refused unchecked \
            (locked, or too soon after a failure).
            """,
            [
                MetricSample(Double(counts.checked - counts.failed), ["outcome": "passed"]),
                MetricSample(Double(counts.failed), ["outcome": "failed"]),
                MetricSample(Double(counts.refused), ["outcome": "refused"]),
            ])
        f.add(
            "appliance_credential_locks_total", .counter,
            "Client addresses or accounts refused for a while after repeated failures.", Double(counts.locks))
        return f.families
    }
}

/// Metric families gathered in the order they are added.
struct MetricFamilyList {
    private(set) var families: [MetricFamily] = []

    mutating func add(_ name: String, _ type: MetricFamily.Kind, _ help: String, _ value: Double) {
        families.append(MetricFamily(name, type, help, value: value))
    }

    mutating func add(_ name: String, _ type: MetricFamily.Kind, _ help: String, _ samples: [MetricSample]) {
        families.append(MetricFamily(name, type, help, samples))
    }
}

extension Double {
    var rounded3: Double { (self * 1000).rounded() / 1000 }
}
