import Foundation
import TOMLKit

#if canImport(Glibc)
    import Glibc
#endif

/// One reader per config section: it reads the section's keys over its defaults, checks what spans keys, and
/// reports any key it does not know (`TableReader.finish`).
enum ConfigSections {
    /// [video]
    package static func video(_ t: inout TableReader, _ defaults: ApplianceConfig.Video) throws -> ApplianceConfig.Video
    {
        var v = defaults
        v.width = try t.int("width", v.width, 16...7680)
        v.height = try t.int("height", v.height, 16...4320)
        v.framerate = try t.int("framerate", v.framerate, 1...240)
        v.encoder = try t.name("encoder", v.encoder)
        if let names = try t.array("encoder_candidates") {
            v.encoderCandidates = try names.map { value in
                guard let name = value.string, !name.isEmpty, name != ApplianceConfig.Video.autoEncoder,
                    name.allSatisfy({ $0.isLetter || $0.isNumber || "-_".contains($0) })
                else {
                    throw t.error(
                        "encoder_candidates",
                        "must list fragment names of pipelines/encoders/ (e.g. [\"openh264\", \"x264\"])")
                }
                return name
            }
            if v.encoderCandidates.isEmpty { throw t.error("encoder_candidates", "must name at least one encoder") }
        }
        v.encoderTrialS = try t.double("encoder_trial_s", v.encoderTrialS, 1...120)
        v.bitrateKbps = try t.int("bitrate_kbps", v.bitrateKbps, 64...200_000)
        v.keyframeIntervalS = try t.double("keyframe_interval_s", v.keyframeIntervalS, 0.1...60)
        v.speedPreset = try t.oneOf(
            "speed_preset", v.speedPreset,
            ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow"])
        v.timestampOverlay = try t.bool("timestamp_overlay", v.timestampOverlay)
        v.passthrough = try t.bool("passthrough", v.passthrough)
        if v.width % 2 != 0 || v.height % 2 != 0 {
            throw t.error("width", "width and height must be even (I420), found \(v.width)x\(v.height)")
        }
        try t.finish()
        return v
    }

    /// [audio]
    package static func audio(_ t: inout TableReader, _ defaults: ApplianceConfig.Audio) throws -> ApplianceConfig.Audio
    {
        var a = defaults
        a.source = try t.oneOf("source", a.source, ["auto", "alsa", "test", "camera", "none"])
        a.device = try t.string("device", a.device)
        a.bitrateKbps = try t.int("bitrate_kbps", a.bitrateKbps, 16...512)
        a.rate = try t.int("rate", a.rate, 8000...96000)
        a.channels = try t.int("channels", a.channels, 1...2)
        try t.finish()
        return a
    }

    /// [[camera]]: at least one, with unique names.
    package static func cameras(_ tables: [TOMLTable], file: String, lines: SourceLines) throws -> [ApplianceConfig
        .Camera]
    {
        var cameras: [ApplianceConfig.Camera] = []
        var names = Set<String>()
        for (index, table) in tables.enumerated() {
            var t = TableReader(table: table, path: "camera", index: index, file: file, lines: lines)
            var c = ApplianceConfig.Camera()
            c.name = try t.name("name", "camera\(index)")
            c.source = try t.oneOf("source", c.source, ["auto", "v4l2", "test", "pipeline", "rtsp"])
            c.device = try t.string("device", c.device)
            c.pattern = try t.string("pattern", c.pattern)
            c.pipeline = try t.string("pipeline", c.pipeline)
            c.mirror = try t.bool("mirror", c.mirror)
            c.rotate = try t.int("rotate", c.rotate, 0...270)
            c.alwaysOn = try t.bool("always_on", c.alwaysOn)
            c.startTimeoutS = try t.double("start_timeout_s", c.startTimeoutS, 0.5...600)
            try networkCamera(&t, &c)
            let mode = try t.string("mode", "")
            if !mode.isEmpty {
                guard let request = ModeRequest(parsing: mode) else {
                    throw t.error(
                        "mode",
                        """
                        must be WIDTHxHEIGHT@FPS with an optional format, e.g. \"1280x720@30\" or \"1920x1080@30 \
                        mjpeg\"; found \"\(mode)\"
                        """
                    )
                }
                c.mode = request
            }
            guard [0, 90, 180, 270].contains(c.rotate) else {
                throw t.error("rotate", "must be 0, 90, 180 or 270, found \(c.rotate)")
            }
            if c.source == "pipeline", c.pipeline.isEmpty {
                throw t.error("pipeline", "source = \"pipeline\" needs a pipeline fragment")
            }
            guard names.insert(c.name).inserted else { throw t.error("name", "duplicate camera name '\(c.name)'") }
            try t.finish()
            cameras.append(c)
        }
        if cameras.isEmpty {
            throw ConfigError(file: file, line: nil, key: "camera", message: "at least one [[camera]] is needed")
        }
        return cameras
    }

    /// An `rtsp` camera's keys: `url` (needed, without credentials), `username`, `password_file`, `transport`,
    /// `latency_ms`.
    private static func networkCamera(_ t: inout TableReader, _ c: inout ApplianceConfig.Camera) throws {
        c.url = try t.string("url", c.url)
        c.username = try t.string("username", c.username)
        c.passwordFile = try t.string("password_file", c.passwordFile)
        c.transport = try t.oneOf("transport", c.transport, ["auto", "tcp", "udp"])
        c.latencyMs = try t.int("latency_ms", c.latencyMs, 0...10_000)
        guard c.source == "rtsp" else { return }
        guard let url = URLComponents(string: c.url), ["rtsp", "rtsps"].contains(url.scheme?.lowercased() ?? ""),
            let host = url.host, !host.isEmpty
        else {
            throw t.error(
                "url", "source = \"rtsp\" needs url = \"rtsp://HOST[:PORT]/PATH\" (or rtsps://), found '\(c.url)'")
        }
        guard url.user == nil, url.password == nil else {
            throw t.error(
                "url",
                """
                put the user name in username and the password in password_file, not in the url (the url is logged \
                and shown)
                """
            )
        }
    }

    /// [preview]
    package static func preview(_ t: inout TableReader, _ defaults: ApplianceConfig.Preview) throws
        -> ApplianceConfig.Preview
    {
        var preview = defaults
        // Any fragment in pipelines/previews/ (kms, kms-fullscreen, wayland, gl ship with the appliance), or auto /
        // none.
        preview.sink = try t.name("sink", preview.sink)
        preview.overlay = try t.bool("overlay", preview.overlay)
        try t.finish()
        return preview
    }

    /// [thumbnail]
    package static func thumbnail(_ t: inout TableReader, _ defaults: ApplianceConfig.Thumbnail) throws
        -> ApplianceConfig.Thumbnail
    {
        var th = defaults
        th.offsetS = try t.double("offset_s", th.offsetS, 0...3600)
        th.maxWidth = try t.int("max_width", th.maxWidth, 16...7680)
        th.maxHeight = try t.int("max_height", th.maxHeight, 16...4320)
        th.quality = try t.int("quality", th.quality, 1...100)
        th.scrubEveryS = try t.double("scrub_every_s", th.scrubEveryS, 0...60)
        th.scrubWidth = try t.int("scrub_width", th.scrubWidth, 32...640)
        try t.finish()
        return th
    }

    /// [recording]
    package static func recording(_ t: inout TableReader, _ defaults: ApplianceConfig.Recording) throws
        -> ApplianceConfig.Recording
    {
        var r = defaults
        r.preRecordS = try t.double("pre_record_s", r.preRecordS, 0...60)
        r.maxDurationS = try t.double("max_duration_s", r.maxDurationS, 1...86_400)
        r.segmentS = try t.double("segment_s", r.segmentS, 0...86_400)
        r.syncIntervalS = try t.double("sync_interval_s", r.syncIntervalS, 0.1...60)
        r.autostart = try t.bool("autostart", r.autostart)
        r.trigger = try t.string("trigger", r.trigger)
        try checkTriggerForm(&t, r.trigger)
        r.postRecordS = try t.double("post_record_s", r.postRecordS, 0...3600)
        r.eventGapS = try t.double("event_gap_s", r.eventGapS, 0...3600)
        let layout = try t.string("file_layout", r.fileLayout.rawValue)
        guard let fileLayout = ApplianceConfig.FileLayout(rawValue: layout) else {
            let known = ApplianceConfig.FileLayout.allCases.map(\.rawValue).joined(separator: ", ")
            throw t.error("file_layout", "must be one of \(known), found '\(layout)'")
        }
        r.fileLayout = fileLayout
        if r.segmentS > 0, r.segmentS < 1 {
            throw t.error("segment_s", "must be 0 (one file per recording) or at least 1 second, found \(r.segmentS)")
        }
        try t.finish()
        return r
    }

    /// `trigger`'s form: "manual", or detectors joined by '+' (which are on is `ConfigLoader.checkTrigger`'s).
    static func checkTriggerForm(_ t: inout TableReader, _ trigger: String) throws {
        let parts = trigger.split(separator: "+", omittingEmptySubsequences: false)
        if trigger != "manual",
            parts.isEmpty || parts.contains(where: { $0.isEmpty || $0 == "manual" || $0.count > 64 })
        {
            throw t.error(
                "trigger",
                """
                must be \"manual\" or detectors joined by '+' (motion, sound, object, a tracked label such as \
                person), found '\(trigger)'
                """
            )
        }
    }

    /// [storage]
    package static func storage(_ t: inout TableReader, _ defaults: ApplianceConfig.Storage) throws
        -> ApplianceConfig.Storage
    {
        var s = defaults
        s.minFreeMb = try t.int("min_free_mb", s.minFreeMb, 0...10_000_000)
        s.maxUsedGb = try t.double("max_used_gb", s.maxUsedGb, 0...1_000_000)
        s.retentionDays = try t.int("retention_days", s.retentionDays, 0...36_500)
        s.eventKeepDays = try t.int("event_keep_days", s.eventKeepDays, 0...36_500)
        s.maxLockedPercent = try t.double("max_locked_percent", s.maxLockedPercent, 0...100)
        let onFull = try t.string("on_full", s.onFull.rawValue)
        guard let policy = ApplianceConfig.Storage.OnFull(rawValue: onFull) else {
            let known = ApplianceConfig.Storage.OnFull.allCases.map(\.rawValue).joined(separator: ", ")
            throw t.error("on_full", "must be one of \(known), found '\(onFull)'")
        }
        s.onFull = policy
        s.keepUntilBackedUp = try t.bool("keep_until_backed_up", s.keepUntilBackedUp)
        try t.finish()
        return s
    }

    /// [backup]
    package static func backup(_ t: inout TableReader, _ defaults: ApplianceConfig.Backup) throws
        -> ApplianceConfig.Backup
    {
        var b = defaults
        b.url = try t.string("url", b.url)
        b.username = try t.string("username", b.username)
        b.passwordFile = try t.string("password_file", b.passwordFile)
        b.caFile = try t.string("ca_file", b.caFile)
        b.onlyLocked = try t.bool("only_locked", b.onlyLocked)
        b.bandwidthKbps = try t.int("bandwidth_kbps", b.bandwidthKbps, 0...10_000_000)
        b.retryBaseS = try t.double("retry_base_s", b.retryBaseS, 0.05...3600)
        try objectStore(&t, &b)
        if !b.url.isEmpty, URL(string: b.url)?.scheme.map({ ["http", "https", "s3"].contains($0) }) != true {
            throw t.error("url", "must be an http:// or https:// URL (WebDAV) or s3://BUCKET/PREFIX, found '\(b.url)'")
        }
        if b.isS3, URL(string: b.url)?.host.map({ !$0.isEmpty }) != true {
            throw t.error("url", "names no bucket: write s3://BUCKET or s3://BUCKET/PREFIX, found '\(b.url)'")
        }
        if !b.endpoint.isEmpty,
            URL(string: b.endpoint)?.scheme.map({ ["http", "https"].contains($0) }) != true
                || URL(string: b.endpoint)?.host == nil
        {
            throw t.error("endpoint", "must be an http:// or https:// URL, found '\(b.endpoint)'")
        }
        if b.isS3, b.accessKey.isEmpty {
            throw t.error("access_key", "is needed for an s3:// url")
        }
        try t.finish()
        return b
    }

    /// [backup]'s S3 keys (used when url is s3://).
    private static func objectStore(_ t: inout TableReader, _ b: inout ApplianceConfig.Backup) throws {
        b.endpoint = try t.string("endpoint", b.endpoint)
        b.region = try t.string("region", b.region)
        b.accessKey = try t.string("access_key", b.accessKey)
        b.secretKeyFile = try t.string("secret_key_file", b.secretKeyFile)
        b.pathStyle = try t.oneOf("path_style", b.pathStyle, ["auto", "on", "off"])
        b.storageClass = try t.string("storage_class", b.storageClass)
        b.serverSideEncryption = try t.oneOf(
            "server_side_encryption", b.serverSideEncryption, ["", "AES256", "aws:kms"])
        b.partSizeMb = try t.int("part_size_mb", b.partSizeMb, 5...5120)
        if b.region.isEmpty { throw t.error("region", "must not be empty (us-east-1 when unsure)") }
    }

    /// [web]
    package static func web(_ t: inout TableReader, _ defaults: ApplianceConfig.Web) throws -> ApplianceConfig.Web {
        var w = defaults
        w.listen = try t.string("listen", w.listen)
        w.tokenFile = try t.string("token_file", w.tokenFile)
        w.publicRead = try t.bool("public_read", w.publicRead)
        w.tls = try t.oneOf("tls", w.tls, ["auto", "on", "off"])
        w.certFile = try t.string("cert_file", w.certFile)
        w.keyFile = try t.string("key_file", w.keyFile)
        if w.certFile.isEmpty != w.keyFile.isEmpty {
            throw t.error(
                w.certFile.isEmpty ? "cert_file" : "key_file",
                """
                cert_file and key_file go together: set both (your certificate and its key) or neither (the device \
                makes its own)
                """
            )
        }
        w.liveFps = try t.int("live_fps", w.liveFps, 1...60)
        w.liveWidth = try t.int("live_width", w.liveWidth, 16...3840)
        w.liveHeight = try t.int("live_height", w.liveHeight, 16...2160)
        w.shareHours = try t.double("share_hours", w.shareHours, 0.01...8760)
        w.webrtcViewers = try t.int("webrtc_viewers", w.webrtcViewers, 0...16)
        w.stun = try t.string("stun", w.stun)
        if !w.stun.isEmpty, !w.stun.hasPrefix("stun://") || ListenAddress.parse(String(w.stun.dropFirst(7))) == nil {
            throw t.error(
                "stun", "must be stun://host:port (e.g. stun://stun.l.google.com:19302) or empty, found '\(w.stun)'")
        }
        if w.enabled {
            guard w.hostAndPort != nil else {
                throw t.error(
                    "listen", "must be host:port (e.g. 127.0.0.1:8080 or [::]:8080) or \"off\", found '\(w.listen)'")
            }
        }
        try t.finish()
        return w
    }

    /// [onvif]: read after [web] (its server, its password) and [rtsp] (its stream).
    package static func onvif(
        _ t: inout TableReader, _ defaults: ApplianceConfig.ONVIF, web: ApplianceConfig.Web,
        rtsp: ApplianceConfig.RTSP
    ) throws -> ApplianceConfig.ONVIF {
        var o = defaults
        o.enabled = try t.bool("enabled", o.enabled)
        o.listen = try t.string("listen", o.listen)
        o.name = try t.string("name", o.name)
        if o.listen != "off" && !o.listen.isEmpty {
            var address = in_addr()
            guard let (host, _) = ListenAddress.parse(o.listen), inet_pton(AF_INET, host, &address) == 1 else {
                throw t.error(
                    "listen",
                    """
                    must be an IPv4 host:port (0.0.0.0:3702 for every interface), \"\" (follow [web] listen) or \
                    \"off\", found '\(o.listen)'
                    """
                )
            }
        }
        if o.enabled {
            guard web.enabled else {
                throw t.error("enabled", "ONVIF's services are on the web server: set [web] listen")
            }
            guard rtsp.enabled else {
                throw t.error("enabled", "ONVIF hands out the RTSP stream: set [rtsp] listen (e.g. 0.0.0.0:8554)")
            }
            if let (host, _) = o.discovery(web: web), !ListenAddress.isLoopback(host), web.tokenFile.isEmpty {
                throw t.error(
                    "listen",
                    """
                    discovery on '\(host)' announces the device to other machines: set [web] token_file (ONVIF \
                    asks for user \(ApplianceConfig.RTSP.user) and that password), or listen = \"off\"
                    """
                )
            }
        }
        try t.finish()
        return o
    }

    /// [rtsp]: read after [web], whose token_file is its password.
    package static func rtsp(_ t: inout TableReader, _ defaults: ApplianceConfig.RTSP, web: ApplianceConfig.Web) throws
        -> ApplianceConfig.RTSP
    {
        var r = defaults
        r.listen = try t.string("listen", r.listen)
        r.path = try t.string("path", r.path)
        r.tls = try t.bool("tls", r.tls)
        if r.enabled {
            guard r.hostAndPort != nil else {
                throw t.error(
                    "listen", "must be host:port (e.g. 0.0.0.0:8554 or 127.0.0.1:8554) or \"off\", found '\(r.listen)'")
            }
            if !r.isLoopback && web.tokenFile.isEmpty {
                throw t.error(
                    "listen",
                    """
                    '\(r.listen)' is reachable from other machines: set [web] token_file (RTSP asks for user \
                    \(ApplianceConfig.RTSP.user) and that password), or listen on 127.0.0.1
                    """
                )
            }
        }
        let allowed = r.path.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_./".contains($0)) }
        if r.path.isEmpty || !allowed || r.path.hasPrefix("/") || r.path.contains("..") {
            throw t.error(
                "path",
                "must be a plain path such as \"live\" (letters, digits, - _ . /, no leading /), found '\(r.path)'")
        }
        try t.finish()
        return r
    }

    /// [mqtt]
    package static func mqtt(_ t: inout TableReader, _ defaults: ApplianceConfig.MQTT) throws -> ApplianceConfig.MQTT {
        var m = defaults
        m.url = try t.string("url", m.url)
        m.username = try t.string("username", m.username)
        m.passwordFile = try t.string("password_file", m.passwordFile)
        m.caFile = try t.string("ca_file", m.caFile)
        m.clientID = try t.string("client_id", m.clientID)
        m.topicPrefix = try t.string("topic_prefix", m.topicPrefix)
        m.discoveryPrefix = try t.string("discovery_prefix", m.discoveryPrefix)
        m.deviceName = try t.string("device_name", m.deviceName)
        if m.enabled, m.broker == nil {
            throw t.error(
                "url",
                """
                must be mqtt://host[:port] or mqtts://host[:port] (no user or path; the password goes in \
                password_file), or empty, found '\(m.url)'
                """
            )
        }
        if m.clientID.contains(where: { $0.isWhitespace }) {
            throw t.error("client_id", "must be a word without spaces, found '\(m.clientID)'")
        }
        for (key, value) in [("topic_prefix", m.topicPrefix), ("discovery_prefix", m.discoveryPrefix)] {
            if value.contains(where: { "#+\0".contains($0) }) || value.hasPrefix("/") || value.hasSuffix("/")
                || value.contains("//")
            {
                throw t.error(
                    key,
                    "must be a topic without wildcards (+ #) or leading, trailing or double slashes, found '\(value)'")
            }
        }
        try t.finish()
        return m
    }
}
