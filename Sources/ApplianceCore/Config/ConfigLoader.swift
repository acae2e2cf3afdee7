import Foundation
import TOMLKit

/// Reads `ApplianceConfig` from TOML. Strict: unknown keys, wrong types and out-of-range values are errors that
/// name the key and its line, so a typo never silently falls back to a default.
public enum ConfigLoader {
    /// Loads a file; `nil` loads the embedded default (Config/appliance.toml compiled in).
    public static func load(path: String?) throws -> ApplianceConfig {
        guard let path else { return try parse(DefaultConfig.text, file: "<embedded Config/appliance.toml>") }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot read the file (permissions or not UTF-8)" : "no such file"
            throw ConfigError(file: path, line: nil, key: "", message: reason)
        }
        return try parse(text, file: path)
    }

    public static func parse(_ text: String, file: String) throws -> ApplianceConfig {
        let root: TOMLTable
        do {
            root = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigError(file: file, line: error.source.begin.line, key: "", message: "TOML syntax: \(error.description)")
        }
        let lines = SourceLines(text)
        var config = ApplianceConfig()
        var top = TableReader(table: root, path: nil, index: nil, file: file, lines: lines)
        config.dataDir = try top.string("data_dir", config.dataDir)
        config.socket = try top.string("socket", config.socket)
        config.pipelinesDir = try top.string("pipelines_dir", config.pipelinesDir)
        config.logLevel = try top.oneOf("log_level", config.logLevel, ["trace", "debug", "info", "notice", "warning", "error", "critical"])

        if var t = try top.table("video") {
            var v = config.video
            v.width = try t.int("width", v.width, 16...7680)
            v.height = try t.int("height", v.height, 16...4320)
            v.framerate = try t.int("framerate", v.framerate, 1...240)
            v.encoder = try t.name("encoder", v.encoder)
            v.bitrateKbps = try t.int("bitrate_kbps", v.bitrateKbps, 64...200_000)
            v.keyframeIntervalS = try t.double("keyframe_interval_s", v.keyframeIntervalS, 0.1...60)
            v.speedPreset = try t.oneOf("speed_preset", v.speedPreset,
                ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow"])
            v.timestampOverlay = try t.bool("timestamp_overlay", v.timestampOverlay)
            if v.width % 2 != 0 || v.height % 2 != 0 {
                throw t.error("width", "width and height must be even (I420), found \(v.width)x\(v.height)")
            }
            try t.finish()
            config.video = v
        }
        if var t = try top.table("audio") {
            var a = config.audio
            a.source = try t.oneOf("source", a.source, ["auto", "alsa", "test", "none"])
            a.device = try t.string("device", a.device)
            a.bitrateKbps = try t.int("bitrate_kbps", a.bitrateKbps, 16...512)
            a.rate = try t.int("rate", a.rate, 8000...96000)
            a.channels = try t.int("channels", a.channels, 1...2)
            try t.finish()
            config.audio = a
        }
        if let cameras = try top.tableArray("camera") {
            config.cameras = []
            var names = Set<String>()
            for (index, table) in cameras.enumerated() {
                var t = TableReader(table: table, path: "camera", index: index, file: file, lines: lines)
                var c = ApplianceConfig.Camera()
                c.name = try t.name("name", "camera\(index)")
                c.source = try t.oneOf("source", c.source, ["auto", "v4l2", "test", "pipeline"])
                c.device = try t.string("device", c.device)
                c.pattern = try t.string("pattern", c.pattern)
                c.pipeline = try t.string("pipeline", c.pipeline)
                c.mirror = try t.bool("mirror", c.mirror)
                c.rotate = try t.int("rotate", c.rotate, 0...270)
                c.alwaysOn = try t.bool("always_on", c.alwaysOn)
                let mode = try t.string("mode", "")
                if !mode.isEmpty {
                    guard let request = ModeRequest(parsing: mode) else {
                        throw t.error("mode", "must be WIDTHxHEIGHT@FPS with an optional format, e.g. \"1280x720@30\" or \"1920x1080@30 mjpeg\"; found \"\(mode)\"")
                    }
                    c.mode = request
                }
                guard [0, 90, 180, 270].contains(c.rotate) else { throw t.error("rotate", "must be 0, 90, 180 or 270, found \(c.rotate)") }
                if c.source == "pipeline", c.pipeline.isEmpty { throw t.error("pipeline", "source = \"pipeline\" needs a pipeline fragment") }
                guard names.insert(c.name).inserted else { throw t.error("name", "duplicate camera name '\(c.name)'") }
                try t.finish()
                config.cameras.append(c)
            }
            if config.cameras.isEmpty { throw ConfigError(file: file, line: nil, key: "camera", message: "at least one [[camera]] is needed") }
        }
        if var t = try top.table("preview") {
            // Any fragment in pipelines/previews/ (kms, kms-fullscreen, wayland, gl ship with the appliance), or auto / none.
            config.preview.sink = try t.name("sink", config.preview.sink)
            config.preview.overlay = try t.bool("overlay", config.preview.overlay)
            try t.finish()
        }
        if var t = try top.table("thumbnail") {
            var th = config.thumbnail
            th.offsetS = try t.double("offset_s", th.offsetS, 0...3600)
            th.maxWidth = try t.int("max_width", th.maxWidth, 16...7680)
            th.maxHeight = try t.int("max_height", th.maxHeight, 16...4320)
            th.quality = try t.int("quality", th.quality, 1...100)
            try t.finish()
            config.thumbnail = th
        }
        if var t = try top.table("recording") {
            var r = config.recording
            r.preRecordS = try t.double("pre_record_s", r.preRecordS, 0...60)
            r.maxDurationS = try t.double("max_duration_s", r.maxDurationS, 1...86_400)
            r.segmentS = try t.double("segment_s", r.segmentS, 0...86_400)
            r.syncIntervalS = try t.double("sync_interval_s", r.syncIntervalS, 0.1...60)
            r.autostart = try t.bool("autostart", r.autostart)
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
            config.recording = r
        }
        if var t = try top.table("storage") {
            var s = config.storage
            s.minFreeMb = try t.int("min_free_mb", s.minFreeMb, 0...10_000_000)
            s.maxUsedGb = try t.double("max_used_gb", s.maxUsedGb, 0...1_000_000)
            s.retentionDays = try t.int("retention_days", s.retentionDays, 0...36_500)
            s.maxLockedPercent = try t.double("max_locked_percent", s.maxLockedPercent, 0...100)
            let onFull = try t.string("on_full", s.onFull.rawValue)
            guard let policy = ApplianceConfig.Storage.OnFull(rawValue: onFull) else {
                let known = ApplianceConfig.Storage.OnFull.allCases.map(\.rawValue).joined(separator: ", ")
                throw t.error("on_full", "must be one of \(known), found '\(onFull)'")
            }
            s.onFull = policy
            s.keepUntilBackedUp = try t.bool("keep_until_backed_up", s.keepUntilBackedUp)
            try t.finish()
            config.storage = s
        }
        if var t = try top.table("backup") {
            var b = config.backup
            b.url = try t.string("url", b.url)
            b.username = try t.string("username", b.username)
            b.passwordFile = try t.string("password_file", b.passwordFile)
            b.caFile = try t.string("ca_file", b.caFile)
            b.onlyLocked = try t.bool("only_locked", b.onlyLocked)
            b.bandwidthKbps = try t.int("bandwidth_kbps", b.bandwidthKbps, 0...10_000_000)
            b.retryBaseS = try t.double("retry_base_s", b.retryBaseS, 0.05...3600)
            if !b.url.isEmpty, URL(string: b.url)?.scheme.map({ ["http", "https"].contains($0) }) != true {
                throw t.error("url", "must be an http:// or https:// URL, found '\(b.url)'")
            }
            try t.finish()
            config.backup = b
        }
        if var t = try top.table("web") {
            var w = config.web
            w.listen = try t.string("listen", w.listen)
            w.tokenFile = try t.string("token_file", w.tokenFile)
            w.publicRead = try t.bool("public_read", w.publicRead)
            w.liveFps = try t.int("live_fps", w.liveFps, 1...60)
            w.liveWidth = try t.int("live_width", w.liveWidth, 16...3840)
            w.liveHeight = try t.int("live_height", w.liveHeight, 16...2160)
            w.shareHours = try t.double("share_hours", w.shareHours, 0.01...8760)
            if w.enabled {
                guard w.hostAndPort != nil else {
                    throw t.error("listen", "must be host:port (e.g. 127.0.0.1:8080 or [::]:8080) or \"off\", found '\(w.listen)'")
                }
                if !w.isLoopback && w.tokenFile.isEmpty {
                    throw t.error("listen", "'\(w.listen)' is reachable from other machines: set [web] token_file (a file holding the password), or listen on 127.0.0.1")
                }
            }
            try t.finish()
            config.web = w
        }
        if let tables = try top.tableArray("input") {
            config.inputs = try tables.enumerated().map { index, table in
                var t = TableReader(table: table, path: "input", index: index, file: file, lines: lines)
                return try DeviceConfigReader.input(&t, index: index)
            }
        }
        if let tables = try top.tableArray("output") {
            config.outputs = try tables.enumerated().map { index, table in
                var t = TableReader(table: table, path: "output", index: index, file: file, lines: lines)
                return try DeviceConfigReader.output(&t, index: index)
            }
        }
        try DeviceConfigReader.checkUniqueLabels(config, file: file)
        try top.finish()
        return config
    }
}

/// Reads typed keys from one TOML table, remembering which were used so unknown keys can be reported.
struct TableReader {
    let table: TOMLTable
    let path: String?
    let index: Int?
    let file: String
    let lines: SourceLines
    private var used = Set<String>()

    init(table: TOMLTable, path: String?, index: Int?, file: String, lines: SourceLines) {
        self.table = table
        self.path = path
        self.index = index
        self.file = file
        self.lines = lines
    }

    func keyPath(_ key: String) -> String {
        guard let path else { return key }
        return index.map { "\(path)[\($0)].\(key)" } ?? "\(path).\(key)"
    }

    func error(_ key: String, _ message: String) -> ConfigError {
        ConfigError(file: file, line: lines.line(of: key, in: path, index: index), key: keyPath(key), message: message)
    }

    /// Whether the table sets `key` (without marking it read).
    func has(_ key: String) -> Bool { table[key] != nil }

    private mutating func value(_ key: String) -> TOMLValueConvertible? {
        used.insert(key)
        return table[key]
    }

    private func mismatch(_ key: String, _ expected: String, _ found: TOMLValueConvertible) -> ConfigError {
        error(key, "expected \(expected), found \(found.type) \(found.debugDescription)")
    }

    mutating func string(_ key: String, _ fallback: String) throws -> String {
        guard let v = value(key) else { return fallback }
        guard let s = v.string else { throw mismatch(key, "a string", v) }
        return s
    }

    /// A name used in file names and fragments: letters, digits, '-', '_', '.'.
    mutating func name(_ key: String, _ fallback: String) throws -> String {
        let s = try string(key, fallback)
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_."))
        guard !s.isEmpty, s.unicodeScalars.allSatisfy(allowed.contains), !s.hasPrefix(".") else {
            throw error(key, "must be a simple name (letters, digits, '-', '_'), found '\(s)'")
        }
        return s
    }

    mutating func oneOf(_ key: String, _ fallback: String, _ allowed: [String]) throws -> String {
        let s = try string(key, fallback)
        guard allowed.contains(s) else {
            throw error(key, "unknown value '\(s)' (one of: \(allowed.joined(separator: ", ")))")
        }
        return s
    }

    mutating func int(_ key: String, _ fallback: Int, _ range: ClosedRange<Int>) throws -> Int {
        guard let v = value(key) else { return fallback }
        guard let i = v.int else { throw mismatch(key, "an integer", v) }
        guard range.contains(i) else { throw error(key, "must be between \(range.lowerBound) and \(range.upperBound), found \(i)") }
        return i
    }

    mutating func double(_ key: String, _ fallback: Double, _ range: ClosedRange<Double>) throws -> Double {
        guard let v = value(key) else { return fallback }
        guard let d = v.double ?? v.int.map(Double.init) else { throw mismatch(key, "a number", v) }
        guard range.contains(d) else { throw error(key, "must be between \(range.lowerBound) and \(range.upperBound), found \(d)") }
        return d
    }

    mutating func bool(_ key: String, _ fallback: Bool) throws -> Bool {
        guard let v = value(key) else { return fallback }
        guard let b = v.bool else { throw mismatch(key, "true or false", v) }
        return b
    }

    mutating func table(_ key: String) throws -> TableReader? {
        guard let v = value(key) else { return nil }
        guard let t = v.table else { throw mismatch(key, "a table [\(key)]", v) }
        return TableReader(table: t, path: key, index: nil, file: file, lines: lines)
    }

    mutating func tableArray(_ key: String) throws -> [TOMLTable]? {
        guard let v = value(key) else { return nil }
        guard let array = v.array else { throw mismatch(key, "an array of tables [[\(key)]]", v) }
        return try array.enumerated().map { index, element in
            guard let t = element.table else {
                throw ConfigError(file: file, line: nil, key: "\(key)[\(index)]", message: "expected a table [[\(key)]]")
            }
            return t
        }
    }

    /// Fails on the first key that was never read: a typo or a key from a newer version.
    func finish() throws {
        for key in table.keys where !used.contains(key) {
            throw error(key, "unknown key")
        }
    }
}
