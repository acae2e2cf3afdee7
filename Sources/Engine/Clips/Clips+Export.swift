import ApplianceBase
import ApplianceProtocol
import Foundation
import GStreamerKit

/// `export`: joins clips into one new MP4 without re-encoding. The sources are hard-linked, numbered in order,
/// into a work folder under partial/, and `splitmuxsrc` plays them as one stream (each file's timestamps offset
/// by the ones before) into a fresh mp4mux with the index first (faststart: a browser can play it while it
/// downloads). Loop segments join frame-exactly: each starts where the one before ended.
extension Clips {
    static let exportTimeout = ClockTime(seconds: 1800)

    /// Clips of several channels are pictures of different sizes, which cannot be joined into one file: a range
    /// that holds them needs a channel (bad_request naming them).
    static func requireOneChannel(_ sources: [Recording], request: ExportRequest, firstChannel: String?) throws {
        var found: [String] = []
        for channel in sources.map({ $0.channel ?? firstChannel ?? "" }) where !found.contains(channel) {
            found.append(channel)
        }
        guard found.count > 1 else { return }
        throw ApplianceError(
            .badRequest,
            """
            the range holds clips of channels \(found.joined(separator: ", ")), which cannot be joined into one \
            file: export one channel (args.channel, ctl export --channel)
            """)
    }

    package func export(_ request: ExportRequest) async throws -> ExportResult {
        let title = try request.title.map(TitleRules.valid)
        var request = request
        if let group = request.group { request.group = try await groupID(group) }
        let longest = RecordingBin.longestFileS(config) + 60
        let channels = channelNames
        if let channel = request.channel, !channels.contains(channel) {
            throw ApplianceError.noChannel(named: channel, among: channels)
        }
        let sources = try await library.exportSources(request, longest: longest, firstChannel: channels.first)
        try Self.requireOneChannel(sources, request: request, firstChannel: channels.first)
        guard let first = sources.first, let last = sources.last else {
            let what =
                request.group.map { "in group \($0)" }
                    ?? """
                    between \(Timestamps.iso(request.from ?? .distantPast)) and \
                    \(Timestamps.iso(request.to ?? .distantFuture))\(request.camera.map { " from camera \($0)" } ?? "")
                    """
            throw ApplianceError(.notFound, "no finished clip \(what)")
        }
        if let missing = sources.first(where: { !FileManager.default.fileExists(atPath: $0.path) }) {
            throw ApplianceError(.conflict, "clip \(missing.id) has no file at \(missing.path)")
        }
        let data = data
        let id = UUID().uuidString.lowercased()
        let work = "\(data.partialDir)/export-\(id)"
        defer { try? FileManager.default.removeItem(atPath: work) }
        let output = "\(work)/out.mp4"
        do {
            try await blocking {
                try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
                for (n, source) in sources.enumerated() {
                    try FileManager.default.linkItem(
                        atPath: source.path, toPath: String(format: "%@/%06d.mp4", work, n + 1))
                }
                try Self.join(folder: work, into: output, hasAudio: sources.allSatisfy(\.audioPresent))
                try DataDirectory.fsync(path: output)
            }
        } catch {
            throw ApplianceError(.internalError, "export failed: \(error)")
        }
        let createdAt = Date()
        var row = Recording(
            id: id, title: title ?? "Export \(Timestamps.title(first.createdAt))", createdAt: createdAt,
            path: data.finalPath(id: id, date: createdAt), state: .complete)
        row.startedAt = first.createdAt
        row.endedAt = last.endedAt
        var cameras: [String] = []
        for camera in sources.flatMap({ ($0.camera ?? "").split(separator: ",").map(String.init) })
        where !cameras.contains(camera) {
            cameras.append(camera)
        }
        row.camera = cameras.isEmpty ? nil : cameras.joined(separator: ",")
        row.channel = first.channel ?? config.channels.first?.name
        row.note = "export of \(sources.count) clip(s): \(first.id) … \(last.id)"
        do {
            try await blocking { [path = row.path] in try data.commit(output, to: path) }
        } catch {
            throw ApplianceError(.internalError, "export finished but could not be moved: \(error)")
        }
        await Recovery.measure(&row, thumbnail: config.thumbnail, data: data)
        if row.state != .failed { row.state = .complete }
        try await library.insert(row)
        logger.info(
            "exported \(sources.count) clip(s)",
            metadata: ["id": "\(id)", "path": "\(row.path)", "duration_ms": "\(row.durationMs ?? 0)"])
        events.publish(.exported(ExportResult(recording: row, sources: sources.map(\.id))))
        await archive?.recordingFinished(id)
        return ExportResult(recording: row, sources: sources.map(\.id))
    }

    /// Concatenates the numbered files in `folder` into `output`. Blocking.
    package static func join(folder: String, into output: String, hasAudio: Bool) throws {
        var description = """
            splitmuxsrc name=src location=\(Bin.quoted(folder + "/0*.mp4")) \
            mp4mux name=mux faststart=true faststart-file=\(Bin.quoted(folder + "/faststart.tmp")) ! filesink \
            location=\(Bin.quoted(output)) \
            src.video_0 ! queue ! h264parse name=vparse ! mux.video_0
            """
        if hasAudio { description += " src.audio_0 ! queue ! aacparse name=aparse ! mux.audio_0" }
        let pipeline = Pipeline(name: "export")
        let bin = try Bin.parse(description, name: "export-bin", label: "export", ghostUnlinkedPads: false)
        for name in ["vparse", "aparse"] {
            if let pad = bin.element(named: name)?.staticPad("src") { ExportGrid.attach(to: pad) }
        }
        try pipeline.add(bin)
        try pipeline.runToEnd(timeout: exportTimeout)
    }
}
