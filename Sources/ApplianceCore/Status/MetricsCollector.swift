import ApplianceProtocol
import Foundation
import ApplianceBase
import MediaLibrary
import Backup
import Engine

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
    /// When the daemon started, by the monotonic clock.
    let started: ContinuousClock.Instant

    func metrics() async -> MetricsReport {
        let s = await status.status()
        let boundaries = await recorder.boundaries
        let cameraStates = await cameras.report(devices: []).cameras
        let backupStatus = await backup?.status()
        let lastUpload = backup == nil ? nil : try? await library.lastBackupAt()
        let seen = liveness.state.withLock { $0 }
        let graph = graph
        var families: [MetricFamily] = []
        func add(_ name: String, _ type: MetricFamily.Kind, _ help: String, _ value: Double) {
            families.append(MetricFamily(name, type, help, value: value))
        }
        func add(_ name: String, _ type: MetricFamily.Kind, _ help: String, _ samples: [MetricSample]) {
            families.append(MetricFamily(name, type, help, samples))
        }

        // The daemon.
        add("appliance_info", .gauge, "Version, GStreamer version and encoder; always 1.",
            [MetricSample(1, ["version": ApplianceVersion.current, "gstreamer": s.gstreamerVersion, "encoder": s.encoder])])
        if let choice = s.encoderChoice {
            add("appliance_encoder_info", .gauge, "The H.264 encoder in use: its element, fragment and how it was chosen (pinned, trial, cached); always 1.",
                [MetricSample(1, ["element": choice.element, "encoder": choice.encoder, "how": choice.how.rawValue])])
        }
        add("appliance_ready", .gauge, "1 once the socket answers and the first frame has passed the camera selector.", s.ready ? 1 : 0)
        add("appliance_uptime_seconds", .gauge, "Seconds since this daemon started.", (ContinuousClock.now - started).seconds.rounded3)
        add("appliance_starts_total", .counter, "Daemon starts on this data folder, this one included.", Double(runs.starts))
        add("appliance_unclean_exits_total", .counter,
            "Runs on this data folder that ended without a clean stop (crash, kill, watchdog abort, power loss).", Double(runs.uncleanExits))

        // Frames.
        let flow = graph.flow.snapshot
        add("appliance_frames_in_total", .counter, "Frames each source delivered to the camera selector (filler: the black stand-in).",
            (graph.cameras + [graph.filler]).map { MetricSample(Double($0.framesIn), ["camera": $0.name]) })
        add("appliance_camera_frames_repeated_total", .counter,
            "Frames each camera's rate keeper repeated because the camera's next frame was late (a camera slower than the configured rate).",
            graph.cameras.map { MetricSample(Double($0.framesRepeated), ["camera": $0.name]) })
        add("appliance_frames_out_total", .counter, "Frames that left the camera selector on the output clock.", Double(flow.outputFrames))
        add("appliance_frames_dropped_total", .counter,
            "Frames lost: slot_taken (a frame for a slot already filled), empty_slot (a stall left a slot empty), encoder_gap (missing at the encoder while recording).",
            [MetricSample(Double(flow.slotCollisions), ["reason": "slot_taken"]), MetricSample(Double(flow.missingSlots), ["reason": "empty_slot"]),
             MetricSample(Double(flow.encoderMissing), ["reason": "encoder_gap"])])
        add("appliance_frames_repeated_total", .counter, "Output slots filled by repeating the last frame.", Double(flow.filledSlots))

        // The recording.
        add("appliance_recorder_state", .gauge, "1 for the recorder's current state.",
            [RecorderState.idle, .recording, .stopping].map { MetricSample($0 == s.state ? 1 : 0, ["state": $0.rawValue]) })
        add("appliance_recording", .gauge, "1 while recording.", s.state == .recording ? 1 : 0)
        add("appliance_recording_elapsed_seconds", .gauge, "Length of the recording in progress (0 when idle).",
            Double(s.recording?.elapsedMs ?? 0) / 1000)
        add("appliance_recording_dropped_frames", .gauge, "Frames missing in the recording in progress.", Double(s.recording?.droppedFrames ?? 0))
        if let offset = s.recording?.avOffsetMs {
            add("appliance_av_offset_seconds", .gauge, "Audio start minus video start of the recording in progress.", offset / 1000)
        }
        add("appliance_recordings_finished_total", .counter, "Files finished by this daemon (each loop segment counts).", Double(s.recordingsThisRun))
        families += Self.lastingFamilies(graph.fragmentCounters)
        families += Self.detectionFamilies(motion: graph.motion, sound: graph.sound)
        add("appliance_recordings", .gauge, "Clips in the library.", Double(s.recordingsTotal))
        add("appliance_segment_boundaries_total", .counter, "Loop recording seams measured.", Double(boundaries.count))
        add("appliance_segment_boundary_missing_frames_total", .counter, "Frames lost at loop recording seams.", Double(boundaries.missingFrames))
        add("appliance_segment_boundary_repeated_frames_total", .counter, "Frames written to two segments at a seam.", Double(boundaries.repeatedFrames))
        add("appliance_segment_boundary_largest_gap_seconds", .gauge, "Largest gap seen at a seam beyond one frame interval.",
            Double(boundaries.largestGapNs) / 1e9)

        families += Self.storageFamilies(s, dataRoot: data.root)
        families += Self.backupFamilies(backupStatus, lastUpload: lastUpload)

        // Cameras, stalls and the watchdog.
        add("appliance_camera_state", .gauge, "1 for each camera's current state.", cameraStates.flatMap { camera in
            CameraSlot.stateNames.map { MetricSample(camera.state == $0 ? 1 : 0, ["camera": camera.name, "state": $0]) }
        })
        add("appliance_stalled", .gauge, "1 while output frames or the bus thread stand still.", seen.stall == nil ? 0 : 1)
        add("appliance_stalls_total", .counter, "Stalls noticed since start.", Double(seen.stalls))
        add("appliance_watchdog_pings_total", .counter, "WATCHDOG=1 messages sent to systemd.", Double(seen.watchdogPings))
        add("appliance_bus_turns_total", .counter, "Turns of the GStreamer bus thread (at least ten a second while alive).",
            Double(graph.busReader.heartbeat))
        if let mqtt = s.mqtt {
            add("appliance_mqtt_connected", .gauge, "1 while the MQTT broker has the connection.", mqtt.state == .connected ? 1 : 0)
            add("appliance_mqtt_connects_total", .counter, "MQTT connections made since start.", Double(mqtt.connects))
        }
        if let rtsp = s.rtsp {
            add("appliance_rtsp_clients", .gauge, "RTSP clients connected now.", Double(rtsp.clients))
        }
        if let web = s.web {
            add("appliance_live_viewers", .gauge, "Live views on the web dashboard, by transport.",
                [MetricSample(Double(web.liveViewers), ["transport": "mjpeg"]), MetricSample(Double(web.webrtcViewers), ["transport": "webrtc"])])
        }
        return MetricsReport(families: families)
    }
}

extension Double {
    var rounded3: Double { (self * 1000).rounded() / 1000 }
}
