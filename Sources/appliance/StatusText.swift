import ApplianceProtocol

/// `ctl status` as text: one line per part of the appliance that is there.
enum StatusText {
    static func lines(_ s: StatusReport) -> [String] {
        var lines: [String] = ["state: \(s.state.rawValue)\(s.ready ? "" : " (starting)")"]
        if let rec = s.recording {
            let segment = rec.segment.map { " segment \($0), \(formatMs(rec.elapsedMs)) in all" } ?? ""
            lines.append(
                """
                recording: \(rec.id) \"\(rec.title)\" \(formatMs(rec.durationMs))\(segment) \
                frames=\(rec.videoFrames) dropped=\(rec.droppedFrames)
                """
            )
        }
        let cameras = s.cameras.map { name in s.cameraModes?[name].map { "\(name) [\($0)]" } ?? name }
        lines.append("cameras: \(cameras.joined(separator: ", ")) (active: \(s.activeCamera))")
        lines.append(
            """
            video: \(s.width)x\(s.height)@\(s.framerate) \(s.encoder)  audio: \(s.audioSource)  preview: \
            \(s.preview)
            """
        )
        lines += channels(s) + encoder(s) + storage(s) + network(s) + sensors(s)
        if let error = s.lastError { lines.append("last error: \(error)") }
        return lines
    }

    /// With several channels, one line each: the lines above are the first channel's.
    static func channels(_ s: StatusReport) -> [String] {
        guard s.channels.count > 1 else { return [] }
        return s.channels.map { c in
            let recording = c.recordingId.map { " \($0)" } ?? ""
            let kept = c.clips.map { clips in
                "; keeps \(clips) clips, " + String(format: "%.1f GB", Double(c.storedBytes ?? 0) / 1e9)
                    + (c.oldestAt.map { " since " + $0.formatted(.iso8601) } ?? "")
            }
            return """
                channel \(c.name): \(c.state.rawValue)\(recording), \(c.activeCamera) of \
                \(c.cameras.joined(separator: ", ")), \(c.width)x\(c.height)@\(c.framerate) \(c.encoder)\(kept ?? "")
                """
        }
    }

    static func encoder(_ s: StatusReport) -> [String] {
        var lines: [String] = []
        if let choice = s.encoderChoice, choice.how != .pinned {
            let replaced =
                choice.failures?.last.map { "\($0.encoder), which failed: \($0.reason)" } ?? "one that failed"
            let how =
                switch choice.how {
                case .failover:
                    "replacing \(replaced)"
                case .cached: "chosen by trial earlier in this boot"
                case .provisional: "untried (no trial answered in time), judged as it runs"
                default: "chosen by trial"
                }
            let trials = choice.trials.filter { $0.result != .notTried }.map { "\($0.name) \($0.result.rawValue)" }
                .joined(separator: ", ")
            lines.append("encoder: \(choice.encoder) (\(choice.element)), \(how): \(trials)")
        }
        return lines
    }

    static func storage(_ s: StatusReport) -> [String] {
        var lines: [String] = []
        lines.append("data: \(s.dataDir)  recordings: \(s.recordingsTotal) (this run: \(s.recordingsThisRun))")
        if let capacity = s.capacity { lines.append(capacityLine(capacity)) }
        if let full = s.storageFull { lines.append("STORAGE FULL: \(full)") }
        if s.storage.state == .missing {
            lines.append("STORAGE MISSING: \(s.storage.detail ?? s.storage.recordingsDir)")
        }
        return lines
    }

    static func network(_ s: StatusReport) -> [String] {
        var lines: [String] = []
        if let web = s.web {
            lines.append(
                """
                web: \(web.url ?? web.listen) (\(web.state.rawValue), \(web.liveViewers) MJPEG and \
                \(web.webrtcViewers) WebRTC live viewers)\(web.error.map { ": \($0)" } ?? "")
                """
            )
            if let fingerprint = web.fingerprint { lines.append("web certificate SHA-256: \(fingerprint)") }
        }
        if let mqtt = s.mqtt {
            lines.append(
                """
                mqtt: \(mqtt.url) (\(mqtt.state.rawValue), topics \(mqtt.topicPrefix)/…, \
                \(mqtt.discoveryPrefix.map { "Home Assistant discovery under \($0)/" } ?? "no discovery"))\
                \(mqtt.error.map { ": \($0)" } ?? "")
                """
            )
        }
        if let rtsp = s.rtsp {
            lines.append(
                """
                rtsp: \(rtsp.url ?? rtsp.listen) (\(rtsp.state.rawValue), \(rtsp.clients) clients, login \
                \(rtsp.authentication))\(rtsp.error.map { ": \($0)" } ?? "")
                """
            )
            for (name, url) in (rtsp.channelStreams ?? [:]).sorted(by: { $0.key < $1.key }) {
                lines.append("rtsp channel \(name): \(url)")
            }
        }
        if let onvif = s.onvif {
            let discovery =
                onvif.discovery == .serving
                ? "discovery on \(onvif.listen) [\(onvif.interfaces.joined(separator: ","))]"
                : "discovery \(onvif.discovery.rawValue)\(onvif.error.map { ": \($0)" } ?? "")"
            lines.append(
                """
                onvif: \(onvif.deviceService ?? "starting") (\(discovery), \(onvif.subscriptions) event \
                subscriptions, login \(onvif.authentication))
                """
            )
        }
        return lines
    }

    /// "; held at 1.6 runs/s of 5 by its 25 % CPU budget, 12 frames held", or nothing without a budget.
    static func budget(_ o: ObjectStatus) -> String {
        guard let budget = o.cpuBudget, budget > 0, let held = o.heldFps else { return "" }
        return String(
            format: "; held at %.1f runs/s of %d by its %.0f %% CPU budget, %llu frames held", held, o.fps,
            budget * 100, o.held ?? 0)
    }

    static func sensors(_ s: StatusReport) -> [String] {
        var lines: [String] = []
        if let sound = s.sound, let level = sound.levelDb {
            lines.append(
                """
                sound: \(level) dBFS (peak \
                \(sound.peakDb ?? level))\(sound.active ? ", SOUND" : "")\
                \(sound.events > 0 ? ", \(sound.events) events" : "")
                """
            )
        }
        if let speaker = s.speaker {
            lines.append(
                """
                speaker: \(speaker.speaker) \
                (\(speaker.state.rawValue)\(speaker.playing.map { ": \($0)" } ?? "")\
                \(speaker.error.map { ": \($0)" } ?? ""), \
                \(speaker.played) played)
                """
            )
        }
        if let motion = s.motion {
            lines.append(
                """
                motion: \(motion.active ? "MOTION" : "quiet") (\(motion.fps) fps at \
                \(motion.width)x\(motion.height), \(motion.framesAnalysed) frames looked at, \(motion.events) \
                events)
                """
            )
        }
        if let o = s.objects {
            let present =
                o.present.isEmpty
                ? "none" : o.present.keys.sorted().map { "\($0) ×\(o.present[$0]!)" }.joined(separator: ", ")
            lines.append(
                """
                objects: \(present) (\(o.detector), \(o.runs) runs of \(o.meanRunMs) ms, \(o.skipped) frames \
                skipped, \(o.events) events\(Self.budget(o)))
                """
            )
        }
        return lines
    }
}
