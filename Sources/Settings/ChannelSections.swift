import MotionAndSound
import TOMLKit

/// `[[channel]]` tables: what is recorded side by side (see `ApplianceConfig.Channel`).
enum ChannelSections {
    /// Reads every `[[channel]]` over the config's `[video]`, `[recording]` and `[audio]`: unique names, each camera in
    /// exactly one channel, and the microphone in at most one.
    static func channels(_ tables: [TOMLTable], config: ApplianceConfig, file: String, lines: SourceLines) throws
        -> [ApplianceConfig.Channel]
    {
        var channels: [ApplianceConfig.Channel] = []
        var owner: [String: String] = [:]  // camera → the channel that records it
        for (index, table) in tables.enumerated() {
            var t = TableReader(table: table, path: "channel", index: index, file: file, lines: lines)
            let channel = try channel(&t, index: index, config: config)
            guard !channels.contains(where: { $0.name == channel.name }) else {
                throw t.error("name", "duplicate channel name '\(channel.name)'")
            }
            for camera in channel.cameras {
                if let other = owner[camera] {
                    throw t.error(
                        "cameras", "camera '\(camera)' is already in channel '\(other)': a camera is in one channel")
                }
                owner[camera] = channel.name
            }
            channels.append(channel)
        }
        if let lost = config.cameras.first(where: { owner[$0.name] == nil }) {
            throw ConfigError(
                file: file, line: lines.line(of: "", in: "channel", index: 0), key: "channel",
                message: "camera '\(lost.name)' is in no [[channel]]: add it to one channel's cameras, or remove it")
        }
        return channels
    }

    /// One table: its own keys, then `[video]`'s keys over `[video]` (which finishes the table: any other key is
    /// unknown).
    private static func channel(_ t: inout TableReader, index: Int, config: ApplianceConfig) throws
        -> ApplianceConfig.Channel
    {
        let name = try t.name("name", index == 0 ? ApplianceConfig.defaultChannelName : "channel\(index)")
        let cameras = try cameraNames(&t, known: config.cameras.map(\.name))
        let trigger = try t.string("trigger", config.recording.trigger)
        try ConfigSections.checkTriggerForm(&t, trigger)
        let preRecordS = try t.double("pre_record_s", config.recording.preRecordS, 0...60)
        let postRecordS = try t.double("post_record_s", config.recording.postRecordS, 0...3600)
        let audio = try t.bool("audio", index == 0 && config.audio.source != "none")
        let (zones, masks) = try detectionAreas(&t)
        let video = try ConfigSections.video(&t, config.video)
        var channel = ApplianceConfig.Channel(
            name: name, cameras: cameras, video: video, trigger: trigger, preRecordS: preRecordS,
            postRecordS: postRecordS, audio: audio)
        (channel.zones, channel.masks) = (zones, masks)
        return channel
    }

    /// `zones = ["porch", …]` (names of `[motion] zones`, checked once `[motion]` is read: `checkZones`) and `masks`
    /// (polygons, as `[motion] masks`): where the channel's own picture is watched.
    private static func detectionAreas(_ t: inout TableReader) throws -> ([String]?, [RelativePolygon]?) {
        let zones = try t.array("zones")?.map { value in
            guard let name = value.string else {
                throw t.error("zones", "must name [motion] zones, found \(value.debugDescription)")
            }
            return name
        }
        let masks = try t.array("masks")?.enumerated().map { index, mask in
            try t.polygon(mask, key: "masks", what: "masks[\(index)]")
        }
        return (zones, masks)
    }

    /// Each channel's `zones` name `[motion] zones`.
    static func checkZones(_ config: ApplianceConfig, file: String, lines: SourceLines) throws {
        for (index, channel) in config.channelTables.enumerated() {
            for name in channel.zones ?? [] where !config.motion.zones.contains(where: { $0.name == name }) {
                throw ConfigError(
                    file: file, line: lines.line(of: "zones", in: "channel", index: index),
                    key: "channel[\(index)].zones",
                    message:
                        """
                        no [motion] zone is named '\(name)' (zones: \
                        \(config.motion.zones.map(\.name).joined(separator: ", ")))
                        """
                )
            }
        }
    }

    /// `cameras = ["front", …]`: at least one, each a `[[camera]]` name, none twice.
    private static func cameraNames(_ t: inout TableReader, known: [String]) throws -> [String] {
        let listed = try t.array("cameras") ?? []
        var names: [String] = []
        for value in listed {
            guard let name = value.string, known.contains(name) else {
                throw t.error(
                    "cameras",
                    "must name [[camera]] tables (\(known.joined(separator: ", "))), found \(value.debugDescription)")
            }
            guard !names.contains(name) else { throw t.error("cameras", "names camera '\(name)' twice") }
            names.append(name)
        }
        guard !names.isEmpty else {
            throw t.error("cameras", "needs at least one camera, e.g. cameras = [\"\(known.first ?? "main")\"]")
        }
        return names
    }
}
