import ApplianceProtocol
import Foundation

/// One or more example values of every command, result and event, chosen by exhaustive switches over the wire
/// names (`Command.Name`, `ApplianceEvent.Kind`): a new command or event does not compile here until it has an
/// example, so the round-trip tests cover every case without a hand-kept list.
enum WireExamples {
    static let created = Date(timeIntervalSince1970: 1_795_000_000)

    static var clip: Recording {
        var row = Recording(
            id: "3c1eebee-0000-4000-8000-000000000001", title: "Garden, dusk 🌆", createdAt: created,
            path: "/data/recordings/2026/11/21/3c1eebee.mp4", state: .complete)
        row.durationMs = 3000
        row.sizeBytes = 9_700_000
        row.backupState = .done
        row.locked = true
        return row
    }

    static let stopped = RecordingResult(
        id: "a", title: "t", path: "/p.mp4", thumbnail: nil, durationMs: 2933, videoFrames: 88, droppedFrames: 0,
        audioDurationMs: 2940, avOffsetMs: -20.4, sizeBytes: 1234, width: 1280, height: 720, framerate: 30,
        createdAt: created, endedAt: created.addingTimeInterval(3), stopReason: .maxDuration, startLatencyMs: 181,
        stopLatencyMs: 40)

    static let started = RecordingStarted(id: "a", title: "t", partialPath: "/p", createdAt: created)

    static let capacity = Capacity(
        usedBytes: 1_000_000_000, freeBytes: 40_000_000_000, budgetBytes: 41_000_000_000,
        lockedBytes: 5, lockedPercent: 0.1, bitrateKbps: 4012, wrapsInS: 22_320, wrapsIn: "6 h 12 min")

    static var status: StatusReport {
        var report = StatusReport(
            state: .recording, ready: true,
            recording: StatusReport.Live(
                id: "a", title: "t", elapsedMs: 5, durationMs: 4, videoFrames: 3, droppedFrames: 0,
                avOffsetMs: nil, partialPath: "/p"),
            cameras: ["main", "usb"], activeCamera: "main", cameraSources: ["main": "test", "usb": "v4l2"],
            audioSource: "test",
            preview: "none", encoder: "x264", width: 1280, height: 720, framerate: 30, dataDir: "/data", uptimeS: 12.5,
            recordingsThisRun: 1, lastError: nil, gstreamerVersion: "1.22.0", recordingsTotal: 3, databaseBytes: 40_960,
            recovery: RecoveryReport(),
            output: OutputStats(frames: 1, slotCollisions: 0, filledSlots: 0, missingSlots: 0, missingAtEncoder: 0),
            storage: StorageStatus(state: .ok, recordingsDir: "/data/recordings"))
        report.capacity = capacity
        report.web = WebStatus(state: .serving, listen: "127.0.0.1:0", url: "http://127.0.0.1:8080", liveViewers: 1)
        return report
    }

    static let motion = Activity(
        id: 12, kind: .motion, camera: "front", startedAt: created, endedAt: created.addingTimeInterval(4.2),
        zones: ["driveway"], peak: 0.125, thumbnail: "/data/activity/motion-1795000000000.jpg")
    static let mark = Activity(id: 13, kind: .external, label: "door opened", startedAt: created, endedAt: created)

    static let share = ShareLink(
        id: "0123456789abcdef", token: "abc_-1", recordingId: "a", title: "t", createdAt: created,
        expiresAt: created.addingTimeInterval(3600))

    /// Every form of the command named `name`, each with a result it may answer.
    static let account = UserAccount(name: "vic", role: .viewer, createdAt: created, lastLogin: nil, tokens: 0)

    static func commands(_ name: Command.Name) -> [(Command, CommandResult)] {
        switch name {
        case .ping: [(.ping, .pong(Pong()))]
        case .version: [(.version, .version(VersionInfo(version: "0.5.0", gstreamer: "1.22.0")))]
        case .status: [(.status, .status(status))]
        case .recordStart:
            [
                (.recordStart(title: nil), .recordingStarted(started)),
                (.recordStart(title: "Garden 🌆"), .recordingStarted(started)),
                (.recordStart(title: nil, channel: "rear"), .recordingStarted(started)),
            ]
        case .recordStop:
            [
                (.recordStop(title: "t"), .recordingStopped(stopped)),
                (.recordStop(title: nil), .recordingStopped(stopped)),
                (.recordStop(title: nil, channel: "rear"), .recordingStopped(stopped)),
            ]
        case .recordToggle:
            [
                (.recordToggle(title: nil), .toggled(ToggleResult(started: started))),
                (.recordToggle(title: "x"), .toggled(ToggleResult(stopped: stopped))),
            ]
        case .snapshot:
            [
                (.snapshot(), .snapshot(SnapshotResult(id: "s", path: "/x/y.jpg", width: 2, height: 1))),
                (.snapshot(channel: "rear"), .snapshot(SnapshotResult(id: "t", path: "/x/z.jpg", width: 2, height: 1))),
            ]
        case .list:
            [
                (
                    .list(page: 3, perPage: 50),
                    .list(ListResult(items: [clip], total: 1, page: 1, perPage: 10, pages: 1, elapsedMs: 0.3))
                ),
                (
                    .listGrouped(page: 1, perPage: 10),
                    .list(ListResult(items: [], total: 0, page: 1, perPage: 10, pages: 0, elapsedMs: 0.1))
                ),
                (
                    .listSegments(group: "g", page: 2, perPage: 5),
                    .list(ListResult(items: [clip], total: 6, page: 2, perPage: 5, pages: 2, elapsedMs: 1))
                ),
                (
                    .listFiltered(ListFilter(search: "garden"), page: 1, perPage: 20),
                    .list(ListResult(items: [], total: 0, page: 1, perPage: 20, pages: 0, elapsedMs: 0))
                ),
                (
                    .listFiltered(
                        ListFilter(
                            search: nil, from: Date(timeIntervalSince1970: 1_800_000_000),
                            to: Date(timeIntervalSince1970: 1_800_086_400)),
                        page: 2, perPage: 10),
                    .list(ListResult(items: [], total: 0, page: 2, perPage: 10, pages: 0, elapsedMs: 0))
                ),
                (
                    .listFiltered(ListFilter(channel: "rear"), page: 1, perPage: 20),
                    .list(ListResult(items: [clip], total: 1, page: 1, perPage: 20, pages: 1, elapsedMs: 0))
                ),
            ]
        case .info:
            [
                (
                    .info(id: "3c1e"),
                    .info(
                        RecordingInfo(
                            recording: clip,
                            measured: {
                                var measured = RecordingInfo.Measured()
                                measured.durationMs = 2990
                                measured.audioChannels = 2
                                return measured
                            }()))
                )
            ]
        case .rename: [(.rename(id: "3c1e", title: "x"), .recording(clip))]
        case .delete:
            [
                (.delete(id: "3c1e", force: true), .deleted(DeleteResult(id: "a", deletedFiles: ["/p.mp4"]))),
                (.delete(id: "3c1e", force: false), .deleted(DeleteResult(id: "a", deletedFiles: []))),
            ]
        case .lock: [(.lock(id: "a"), .recording(clip))]
        case .unlock: [(.unlock(id: "a"), .recording(clip))]
        case .cameras:
            [
                (
                    .cameras,
                    .cameras(
                        CamerasReport(
                            active: "frontCam",
                            cameras: [
                                CameraReport(
                                    name: "frontCam", source: "v4l2", device: "/dev/video0",
                                    state: "active", detail: nil, alwaysOn: false, mode: "640x360@30")
                            ],
                            devices: [
                                DeviceInfo(name: "USB", deviceClass: "Video/Source", caps: "video/x-raw", path: nil)
                            ]))
                )
            ]
        case .discoverCameras:
            [
                (
                    .discoverCameras(CameraDiscoveryRequest()),
                    .discovered(
                        CameraDiscovery(
                            cameras: [
                                DiscoveredCamera(
                                    address: "http://192.168.1.20/onvif/device_service", endpoint: "urn:uuid:1",
                                    name: "Door", hardware: "X1")
                            ],
                            interfaces: ["eth0"]))
                ),
                (
                    .discoverCameras(CameraDiscoveryRequest(username: "admin", password: Secret("pw"), seconds: 5)),
                    .discovered(
                        CameraDiscovery(
                            cameras: [
                                DiscoveredCamera(
                                    address: "http://192.168.1.20/onvif/device_service", endpoint: "urn:uuid:1",
                                    streams: [
                                        DiscoveredStream(
                                            profile: "main", uri: "rtsp://192.168.1.20:554/s1", encoding: "H264",
                                            width: 1920, height: 1080)
                                    ])
                            ],
                            interfaces: ["eth0"]))
                ),
            ]
        case .play:
            [
                (
                    .play(PlayRequest(file: "/srv/door.ogg")),
                    .played(PlayResult(sound: "/srv/door.ogg", durationMs: 2500, speaker: "alsa default"))
                ),
                (
                    .play(PlayRequest(chime: .recordingStarted)),
                    .played(
                        PlayResult(
                            sound: "recording-started", durationMs: 310, speaker: "alsa default",
                            interrupted: "/srv/door.ogg"))
                ),
            ]
        case .switchCamera:
            [
                (
                    .switchCamera(.named("back")),
                    .switched(SwitchResult(active: "back", previous: "a", switched: true, latencyMs: 45.5))
                ),
                (
                    .switchCamera(.next(channel: nil)),
                    .switched(SwitchResult(active: "a", previous: "a", switched: false))
                ),
                (
                    .switchCamera(.next(channel: "rear")),
                    .switched(SwitchResult(active: "rear-b", previous: "rear-a", switched: true, latencyMs: 38))
                ),
            ]
        case .backupStatus:
            [
                (.backupStatus, .backupStatus(.off)),
                (
                    .backupStatus,
                    .backupStatus(
                        BackupStatus(
                            enabled: true, url: "https://dav.example/x", onlyLocked: false, bandwidthKbps: 800,
                            paused: true,
                            pauseReason: "507", counts: BackupCounts(pending: 2, done: 9),
                            current: BackupProgress(id: "a", bytesDone: 10, bytesTotal: 20, rateKbps: 8),
                            lastError: "HTTP 507", nextRetryAt: created))
                ),
            ]
        case .backupRetry:
            [
                (.backupRetry(id: nil), .backupRetry(RetryResult(requeued: 2))),
                (.backupRetry(id: "a"), .backupRetry(RetryResult(requeued: 1))),
            ]
        case .protect:
            [
                (
                    .protect(before: 10, after: 2.5),
                    .protected(
                        ProtectResult(
                            from: created, to: created.addingTimeInterval(12.5), locked: ["a"],
                            alreadyDeleted: [], pendingUntil: created.addingTimeInterval(12.5)))
                )
            ]
        case .export:
            [
                (
                    .export(ExportRequest(group: "g", title: "trip")),
                    .exported(ExportResult(recording: clip, sources: ["a", "b"]))
                ),
                (
                    .export(ExportRequest(from: created, to: created.addingTimeInterval(60), camera: "main")),
                    .exported(ExportResult(recording: clip, sources: ["a"]))
                ),
            ]
        case .metrics:
            [
                (
                    .metrics,
                    .metrics(
                        MetricsReport(families: [
                            MetricFamily("appliance_info", .gauge, "Info.", [MetricSample(1, ["version": "0.5.0"])])
                        ]))
                )
            ]
        case .share:
            [(.share(id: "3c1e", hours: nil), .shared(share)), (.share(id: "3c1e", hours: 1.5), .shared(share))]
        case .shares: [(.shares, .shares(ShareList(items: [share])))]
        case .unshare:
            [
                (.unshare(link: "abc_-1"), .unshared(UnshareResult(id: "0123456789abcdef", revoked: true))),
                (.unshare(link: "0123456789abcdef"), .unshared(UnshareResult(id: "0123456789abcdef", revoked: true))),
            ]
        case .activity:
            [
                (.activity(ActivityFilter()), .activity(ActivityList(items: [motion, mark], total: 2))),
                (.activity(ActivityFilter(channel: "rear")), .activity(ActivityList(items: [], total: 0))),
                (
                    .activity(
                        ActivityFilter(
                            kinds: [.sound, .external], from: created, to: created.addingTimeInterval(86_400), limit: 5)
                    ),
                    .activity(ActivityList(items: [], total: 0))
                ),
            ]
        case .activityShow:
            [(.activityShow(id: 12), .activityDetail(ActivityDetail(activity: motion, recordings: [clip])))]
        case .activityMark:
            [
                (.activityMark(ActivityMark(label: "door opened")), .activityMarked(mark)),
                (.activityMark(ActivityMark(label: "impact", at: created, durationS: 2.5)), .activityMarked(mark)),
            ]
        case .timeline:
            [
                (
                    .timeline(from: created, to: created.addingTimeInterval(86_400)),
                    .timeline(
                        Timeline(
                            from: created, to: created.addingTimeInterval(86_400),
                            spans: [
                                TimelineSpan(
                                    start: created, end: created.addingTimeInterval(600), recordings: 60, firstId: "a",
                                    group: "g",
                                    cameras: ["front"], locked: 2, live: true)
                            ],
                            gaps: [
                                TimelineRange(
                                    start: created.addingTimeInterval(600), end: created.addingTimeInterval(900))
                            ],
                            locks: [
                                TimelineRange(
                                    start: created.addingTimeInterval(10), end: created.addingTimeInterval(30))
                            ],
                            events: [motion, mark], eventsTotal: 2, recordedS: 600, elapsedMs: 3.25))
                ),
                (
                    .timeline(from: created, to: created.addingTimeInterval(3600), channel: "rear"),
                    .timeline(
                        Timeline(
                            from: created, to: created.addingTimeInterval(3600), spans: [], gaps: [], locks: [],
                            events: [], eventsTotal: 0, recordedS: 0, elapsedMs: 0.5))
                ),
            ]
        case .timelineDays:
            [
                (
                    .timelineDays(month: "2026-11"),
                    .timelineDays(
                        TimelineDays(
                            month: "2026-11",
                            days: [
                                TimelineDay(
                                    day: "2026-11-25", recordings: 8640, recordedS: 86_400, locked: 12, events: 31),
                                TimelineDay(day: "2026-11-26", events: 1),
                            ]))
                )
            ]
        case .activityProtect:
            [
                (
                    .activityProtect(id: 12),
                    .protected(
                        ProtectResult(
                            from: created, to: created.addingTimeInterval(12.5), locked: ["a"],
                            alreadyDeleted: ["g#3"], pendingUntil: nil))
                )
            ]
        case .users: [(.users, .users(UserList(items: [account], tokenFile: true)))]
        case .userAdd: [(.userAdd(name: "vic", role: .viewer, password: Secret("pass word 1")), .user(account))]
        case .userPassword: [(.userPassword(name: "vic", password: Secret("pass word 2")), .user(account))]
        case .userRole: [(.userRole(name: "vic", role: .admin), .user(account))]
        case .userRemove: [(.userRemove(name: "vic"), .userRemoved(UserRemoved(name: "vic", removed: true)))]
        case .userToken:
            [(.userToken(name: "vic"), .userToken(UserToken(name: "vic", token: "apl_x", createdAt: created)))]
        case .userRevokeTokens: [(.userRevokeTokens(name: "vic"), .user(account))]
        }
    }

    /// An example of the event of `kind`.
    static func event(_ kind: ApplianceEvent.Kind) -> ApplianceEvent {
        let device = DeviceInfo(name: "n", deviceClass: "Audio/Source", caps: "c", path: "/dev/snd/pcmC0D0c")
        let deletion = RetentionDeletion(
            id: "a", path: "/p.mp4", createdAt: created, sizeBytes: 12, reason: .minFree, locked: false, backedUp: true)
        let input = InputStatus(
            label: "button", kind: "evdev", device: "/dev/input/event3", state: .connected, grabbed: true)
        return switch kind {
        case .ready: .ready(Ready(startupMs: 412.5))
        case .recordingStarted: .recordingStarted(started)
        case .recordingStopped: .recordingStopped(stopped)
        case .segmentClosed: .segmentClosed(stopped)
        case .thumbnailReady: .thumbnailReady(ThumbnailReady(id: "a", thumbnail: "/t.jpg"))
        case .renamed: .renamed(Renamed(id: "a", title: "b"))
        case .locked: .locked(ClipEvent(id: "a"))
        case .unlocked: .unlocked(ClipEvent(id: "a"))
        case .deleted: .deleted(ClipEvent(id: "a"))
        case .error: .error(PipelineError(source: "/appliance/x", message: "m"))
        case .cameraSwitched: .cameraSwitched(CameraSwitched(from: nil, to: "front", latencyMs: 45.2))
        case .cameraFailed: .cameraFailed(CameraFailure(camera: "usb", reason: "busy"))
        case .cameraAvailable: .cameraAvailable(CameraDevice(camera: "usb", device: "/dev/video2"))
        case .cameraMissing: .cameraMissing(CameraDevice(camera: "usb", device: "/dev/video2"))
        case .deviceAdded: .deviceAdded(device)
        case .deviceRemoved: .deviceRemoved(device)
        case .storageMissing:
            .storageMissing(
                StorageStatus(state: .missing, recordingsDir: "/d", missingFiles: 100_000, detail: "not mounted"))
        case .storageAvailable: .storageAvailable(StorageStatus(state: .ok, recordingsDir: "/d"))
        case .retentionDeleted: .retentionDeleted(deletion)
        case .retentionWarning: .retentionWarning(deletion)
        case .storageFull: .storageFull(StorageFull(reason: "min_free_mb", capacity: capacity, stoppedRecording: true))
        case .exported: .exported(ExportResult(recording: clip, sources: ["a"]))
        case .backupStarted: .backupStarted(BackupTransfer(id: "a", remote: "2026/x.mp4"))
        case .backupProgress: .backupProgress(BackupProgress(id: "a", bytesDone: 10, bytesTotal: 20, rateKbps: 8))
        case .backupDone:
            .backupDone(BackupDone(id: "a", remote: "2026/x.mp4", bytes: 1_073_741_824, rateKbps: 3_900_000))
        case .backupRetry: .backupRetry(BackupRetryScheduled(id: "a", error: "HTTP 503", retryInS: 2.5))
        case .backupFailed: .backupFailed(BackupFailure(id: "a", error: "HTTP 403"))
        case .backupPaused: .backupPaused(BackupPause(reason: "server full"))
        case .backupResumed: .backupResumed(BackupPause(reason: "server full"))
        case .backupDeleted: .backupDeleted(BackupTransfer(id: "a", remote: "2026/x.mp4"))
        case .stalled: .stalled(Stall(reason: "no frames for 3 s", seconds: 3))
        case .flowing: .flowing(Stall(reason: "frames again", seconds: 4.5))
        case .encoderFailed:
            .encoderFailed(
                EncoderFailure(
                    encoder: "vah264", element: "vah264enc", reason: "the encoder returned \"error\"", next: "openh264",
                    nextElement: "openh264enc"))
        case .inputConnected: .inputConnected(input)
        case .inputMissing:
            .inputMissing(
                InputStatus(
                    label: "button", kind: "evdev", device: "/dev/input/event3", state: .missing,
                    detail: "no such device"))
        case .inputGesture:
            .inputGesture(InputGesture(label: "button", gesture: .longPress, action: "protect", command: "protect"))
        case .mqttConnected:
            .mqttConnected(
                MQTTStatus(
                    state: .connected, url: "mqtt://broker:1883", topicPrefix: "appliance/1a2b3c4d",
                    discoveryPrefix: "homeassistant", deviceID: "1a2b3c4d", connects: 1))
        case .mqttDisconnected:
            .mqttDisconnected(
                MQTTStatus(
                    state: .disconnected, url: "mqtts://broker:8883", error: "Connection refused",
                    topicPrefix: "appliance/1a2b3c4d", discoveryPrefix: nil, deviceID: "1a2b3c4d", connects: 2))
        case .motionStarted:
            .motionStarted(
                MotionEvent(
                    camera: "main", startedAt: Date(timeIntervalSince1970: 1_700_000_000), zones: ["door"],
                    peakScore: 0.042))
        case .motionEnded:
            .motionEnded(
                MotionEvent(
                    camera: "main", startedAt: Date(timeIntervalSince1970: 1_700_000_000),
                    endedAt: Date(timeIntervalSince1970: 1_700_000_012.5), zones: ["door"], peakScore: 0.042))
        case .soundStarted:
            .soundStarted(SoundEvent(startedAt: Date(timeIntervalSince1970: 1_700_000_000), peakDb: -18.5))
        case .soundEnded:
            .soundEnded(
                SoundEvent(
                    startedAt: Date(timeIntervalSince1970: 1_700_000_000),
                    endedAt: Date(timeIntervalSince1970: 1_700_000_003.25),
                    peakDb: -12.25))
        case .objectStarted:
            .objectStarted(
                ObjectEvent(
                    label: "person", camera: "main", startedAt: Date(timeIntervalSince1970: 1_700_000_000),
                    score: 0.82, box: ObjectBox(x: 0.4, y: 0.2, width: 0.1, height: 0.3)))
        case .objectEnded:
            .objectEnded(
                ObjectEvent(
                    label: "person", camera: "main", startedAt: Date(timeIntervalSince1970: 1_700_000_000),
                    endedAt: Date(timeIntervalSince1970: 1_700_000_012.5), score: 0.91,
                    box: ObjectBox(x: 0.45, y: 0.2, width: 0.1, height: 0.3)))
        case .activity: .activity(motion)
        case .clockJumped:
            .clockJumped(
                ClockJump(
                    jumpS: 172_800, from: Date(timeIntervalSince1970: 1_700_000_000),
                    to: Date(timeIntervalSince1970: 1_700_172_800), redatedRecordings: 6, redatedActivities: 1))
        case .authFailed:
            .authFailed(AuthFailure(door: "web", client: "192.0.2.7", user: "anna", reason: "wrong name or password"))
        case .speakerPlayed:
            .speakerPlayed(SpeakerPlayback(sound: "recording-started", playedMs: 412, interrupted: false))
        case .speakerFailed:
            .speakerFailed(SpeakerFailure(sound: "/srv/door.ogg", reason: "Could not open audio device for playback."))
        }
    }
}
