import Foundation
import MotionAndSound
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
            let reason =
                FileManager.default.fileExists(atPath: path)
                ? "cannot read the file (permissions or not UTF-8)" : "no such file"
            throw ConfigError(file: path, line: nil, key: "", message: reason)
        }
        return try parse(text, file: path)
    }

    public static func parse(_ text: String, file: String) throws -> ApplianceConfig {
        if let (line, message) = TOMLPrecheck.problem(in: text) {
            throw ConfigError(file: file, line: line, key: "", message: "TOML syntax: \(message)")
        }
        let root: TOMLTable
        do {
            root = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigError(
                file: file, line: error.source.begin.line, key: "", message: "TOML syntax: \(error.description)")
        }
        let lines = SourceLines(text)
        var config = ApplianceConfig()
        var top = TableReader(table: root, path: nil, index: nil, file: file, lines: lines)
        config.dataDir = try top.string("data_dir", config.dataDir)
        config.socket = try top.string("socket", config.socket)
        config.pipelinesDir = try top.string("pipelines_dir", config.pipelinesDir)
        config.logLevel = try top.oneOf(
            "log_level", config.logLevel, ["trace", "debug", "info", "notice", "warning", "error", "critical"])

        if var t = try top.table("video") { config.video = try ConfigSections.video(&t, config.video) }
        if var t = try top.table("audio") { config.audio = try ConfigSections.audio(&t, config.audio) }
        if let tables = try top.tableArray("camera") {
            config.cameras = try ConfigSections.cameras(tables, file: file, lines: lines)
        }
        if var t = try top.table("preview") { config.preview = try ConfigSections.preview(&t, config.preview) }
        if var t = try top.table("thumbnail") { config.thumbnail = try ConfigSections.thumbnail(&t, config.thumbnail) }
        if var t = try top.table("recording") { config.recording = try ConfigSections.recording(&t, config.recording) }
        if let tables = try top.tableArray("channel") {
            config.channelTables = try ChannelSections.channels(tables, config: config, file: file, lines: lines)
        }
        if var t = try top.table("storage") { config.storage = try ConfigSections.storage(&t, config.storage) }
        if var t = try top.table("backup") { config.backup = try ConfigSections.backup(&t, config.backup) }
        if var t = try top.table("web") { config.web = try ConfigSections.web(&t, config.web) }
        if var t = try top.table("rtsp") { config.rtsp = try ConfigSections.rtsp(&t, config.rtsp, web: config.web) }
        if var t = try top.table("mqtt") { config.mqtt = try ConfigSections.mqtt(&t, config.mqtt) }
        if var t = try top.table("onvif") {
            config.onvif = try ConfigSections.onvif(&t, config.onvif, web: config.web, rtsp: config.rtsp)
        }
        if var t = try top.table("motion") { config.motion = try ConfigSections.motion(&t, config.motion) }
        if var t = try top.table("sound") { config.sound = try ConfigSections.sound(&t, config.sound) }
        if var t = try top.table("speaker") { config.speaker = try ConfigSections.speaker(&t, config.speaker) }
        if var t = try top.table("objects") { config.objects = try ConfigSections.objects(&t, config.objects) }
        try readDevices(&top, into: &config, file: file, lines: lines)
        try checkTrigger(config, file: file, lines: lines)
        try checkObjects(config, file: file, lines: lines)
        try ChannelSections.checkZones(config, file: file, lines: lines)
        try top.finish()
        return config
    }
}

extension ConfigLoader {
    /// The `[[input]]` and `[[output]]` tables, their labels unique.
    static func readDevices(
        _ top: inout TableReader, into config: inout ApplianceConfig, file: String, lines: SourceLines
    ) throws {
        if let tables = try top.tableArray("input") {
            config.inputs = try tables.enumerated().map { index, table in
                var t = TableReader(table: table, path: "input", index: index, file: file, lines: lines)
                return try DeviceConfigReader.input(&t, index: index, channels: config.channels.map(\.name))
            }
        }
        if let tables = try top.tableArray("output") {
            config.outputs = try tables.enumerated().map { index, table in
                var t = TableReader(table: table, path: "output", index: index, file: file, lines: lines)
                return try DeviceConfigReader.output(&t, index: index, channels: config.channels.map(\.name))
            }
        }
        try DeviceConfigReader.checkUniqueLabels(config, file: file)
    }

    /// `[objects]` looks where motion is (it needs `[motion]`), and its zones are `[motion]`'s.
    static func checkObjects(_ config: ApplianceConfig, file: String, lines: SourceLines) throws {
        for name in config.objects.zones where !config.motion.zones.contains(where: { $0.name == name }) {
            throw ConfigError(
                file: file, line: lines.line(of: "zones", in: "objects", index: nil), key: "objects.zones",
                message:
                    """
                    no [motion] zone is named '\(name)' (zones: \
                    \(config.motion.zones.map(\.name).joined(separator: ", ")))
                    """
            )
        }
        if config.objects.enabled, !config.motion.enabled {
            throw ConfigError(
                file: file, line: lines.line(of: "enabled", in: "objects", index: nil), key: "objects.enabled",
                message: "[objects] needs [motion] enabled = true: objects are looked for where motion is")
        }
    }

    /// `[recording] trigger` names detectors that are on: "motion" and "sound" need theirs, "object" and a label
    /// (`"person"`) need [objects] (the label among `track`).
    static func checkTrigger(_ config: ApplianceConfig, file: String, lines: SourceLines) throws {
        try checkTrigger(config.recording.trigger, in: config, file: file, lines: lines, table: "recording", index: nil)
        for (index, channel) in config.channelTables.enumerated() {
            try checkTrigger(channel.trigger, in: config, file: file, lines: lines, table: "channel", index: index)
        }
    }

    /// One `trigger` (`[recording]`'s or a channel's), its line found in `table`.
    private static func checkTrigger(
        _ trigger: String, in config: ApplianceConfig, file: String, lines: SourceLines, table: String, index: Int?
    ) throws {
        func refuse(_ message: String) -> ConfigError {
            let key = index.map { "\(table)[\($0)].trigger" } ?? "\(table).trigger"
            return ConfigError(
                file: file, line: lines.line(of: "trigger", in: table, index: index), key: key,
                message: "trigger = \"\(trigger)\" \(message)")
        }
        let kinds = trigger == "manual" ? [] : trigger.split(separator: "+").map(String.init)
        for kind in kinds {
            switch kind {
            case "motion" where !config.motion.enabled, "sound" where !config.sound.enabled:
                throw refuse("needs [\(kind)] enabled = true")
            case "motion", "sound":
                continue
            case _ where !config.objects.enabled:
                throw refuse("needs [objects] enabled = true (and [motion]: objects are looked for where motion is)")
            case "object":
                continue
            case _ where !config.objects.track.contains(kind):
                throw refuse(
                    """
                    names '\(kind)', which is not among [objects] track \
                    (\(config.objects.track.joined(separator: ", ")))
                    """
                )
            default:
                continue
            }
        }
    }
}

/// Reads typed keys from one TOML table, remembering which were used so unknown keys can be reported.
struct TableReader {
    package let table: TOMLTable
    package let path: String?
    package let index: Int?
    package let file: String
    package let lines: SourceLines
    private var used = Set<String>()

    package init(table: TOMLTable, path: String?, index: Int?, file: String, lines: SourceLines) {
        self.table = table
        self.path = path
        self.index = index
        self.file = file
        self.lines = lines
    }

    package func keyPath(_ key: String) -> String {
        guard let path else { return key }
        return index.map { "\(path)[\($0)].\(key)" } ?? "\(path).\(key)"
    }

    package func error(_ key: String, _ message: String) -> ConfigError {
        ConfigError(file: file, line: lines.line(of: key, in: path, index: index), key: keyPath(key), message: message)
    }

    /// Whether the table sets `key` (without marking it read).
    package func has(_ key: String) -> Bool { table[key] != nil }

    private mutating func value(_ key: String) -> TOMLValueConvertible? {
        used.insert(key)
        return table[key]
    }

    private func mismatch(_ key: String, _ expected: String, _ found: TOMLValueConvertible) -> ConfigError {
        error(key, "expected \(expected), found \(found.type) \(found.debugDescription)")
    }

    package mutating func string(_ key: String, _ fallback: String) throws -> String {
        guard let v = value(key) else { return fallback }
        guard let s = v.string else { throw mismatch(key, "a string", v) }
        return s
    }

    /// A name used in file names and fragments: letters, digits, '-', '_', '.'.
    package mutating func name(_ key: String, _ fallback: String) throws -> String {
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

    package mutating func int(_ key: String, _ fallback: Int, _ range: ClosedRange<Int>) throws -> Int {
        guard let v = value(key) else { return fallback }
        guard let i = v.int else { throw mismatch(key, "an integer", v) }
        guard range.contains(i) else {
            throw error(key, "must be between \(range.lowerBound) and \(range.upperBound), found \(i)")
        }
        return i
    }

    package mutating func double(_ key: String, _ fallback: Double, _ range: ClosedRange<Double>) throws -> Double {
        guard let v = value(key) else { return fallback }
        guard let d = v.double ?? v.int.map(Double.init) else { throw mismatch(key, "a number", v) }
        guard range.contains(d) else {
            throw error(key, "must be between \(range.lowerBound) and \(range.upperBound), found \(d)")
        }
        return d
    }

    package mutating func bool(_ key: String, _ fallback: Bool) throws -> Bool {
        guard let v = value(key) else { return fallback }
        guard let b = v.bool else { throw mismatch(key, "true or false", v) }
        return b
    }

    package mutating func table(_ key: String) throws -> TableReader? {
        guard let v = value(key) else { return nil }
        guard let t = v.table else { throw mismatch(key, "a table [\(key)]", v) }
        return TableReader(table: t, path: key, index: nil, file: file, lines: lines)
    }

    mutating func tableArray(_ key: String) throws -> [TOMLTable]? {
        guard let v = value(key) else { return nil }
        guard let array = v.array else { throw mismatch(key, "an array of tables [[\(key)]]", v) }
        return try array.enumerated().map { index, element in
            guard let t = element.table else {
                throw ConfigError(
                    file: file, line: nil, key: "\(key)[\(index)]", message: "expected a table [[\(key)]]")
            }
            return t
        }
    }

    /// A polygon in relative coordinates: an array of at least three `[x, y]` pairs, each in 0…1. `value` is the key's
    /// value, or an element of it (`what` then names which, for the message).
    func polygon(_ value: TOMLValueConvertible, key: String, what: String) throws -> RelativePolygon {
        let message =
            "\(what) must be an array of at least three [x, y] points, each between 0 and 1 (0,0 the top left)"
        guard let array = value.array else { throw error(key, message) }
        let points = try array.map { element -> RelativePolygon.Point in
            guard let pair = element.array, pair.count == 2,
                let x = pair[0].double ?? pair[0].int.map(Double.init),
                let y = pair[1].double ?? pair[1].int.map(Double.init)
            else {
                throw error(key, message)
            }
            return RelativePolygon.Point(x, y)
        }
        guard let polygon = RelativePolygon(points) else { throw error(key, message) }
        return polygon
    }

    /// An array under `key` (nil when absent).
    package mutating func array(_ key: String) throws -> [TOMLValueConvertible]? {
        guard let v = value(key) else { return nil }
        guard let array = v.array else { throw mismatch(key, "an array", v) }
        return Array(array)
    }

    /// Fails on the first key that was never read: a typo or a key from a newer version.
    package func finish() throws {
        for key in table.keys where !used.contains(key) {
            throw error(key, "unknown key")
        }
    }
}
