import ApplianceProtocol
import Foundation
import GStreamerKit

/// One sound on the speaker: a pipeline of its own (`filesrc ! decodebin ! audioconvert ! audioresample ! volume !`
/// the speaker's sink), made for this sound and stopped after it, so the speaker's device is open only while it
/// plays and nothing of it is in the recording's pipeline.
package final class SoundPlayback: Sendable {
    package let sound: String
    package let durationMs: Int?
    package let started: ContinuousClock.Instant
    private let pipeline: Pipeline
    private let bus: BusReader
    /// The pipeline's errors and end of stream, read on its bus thread.
    package var messages: AsyncStream<Message> { bus.messages }

    /// Why a sound could not start: the file (bad input) or the speaker (its device).
    package enum Failure: Error, Sendable {
        case file(String)
        case speaker(String)
    }

    private init(sound: String, durationMs: Int?, pipeline: Pipeline, bus: BusReader) {
        (self.sound, self.durationMs, self.pipeline, self.bus) = (sound, durationMs, pipeline, bus)
        started = .now
    }

    /// Prepares `file` on `sink` and starts it: the file is decoded up to its first sound and the sink opened
    /// first, so a file that is not sound and a speaker that cannot play are told apart and said at once. Blocking.
    package static func start(
        file: String, sound: String, sink: SpeakerSink, volume: Double,
        echo: EchoReference? = nil
    ) throws(Failure) -> SoundPlayback {
        var folder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &folder) else {
            throw .file("no such file: \(file)")
        }
        guard !folder.boolValue else { throw .file("\(file) is a folder, not a sound file") }
        guard FileManager.default.isReadableFile(atPath: file) else { throw .file("cannot read \(file) (permissions)") }
        let pipeline = Pipeline(name: "speaker")
        do {
            let tail = EchoReference.speakerTail(sink: sink, echo: echo != nil)
            let bin = try Bin.parse(
                """
                filesrc name=file ! decodebin name=decode ! audioconvert ! audioresample ! volume name=volume ! \
                \(tail)
                """,
                name: "sound", label: "[speaker]", ghostUnlinkedPads: false)
            echo?.feed(from: bin)
            bin.element(named: "file")?.set("location", file)
            try bin.element(named: "volume")?.set("volume", string: "\(volume)")
            try pipeline.add(bin)
        } catch {
            throw .speaker("the speaker's pipeline does not parse: \(error)")
        }
        try preroll(pipeline, file: file)
        let duration = pipeline.queryDuration().map { Int($0.nanoseconds / 1_000_000) }
        let bus = pipeline.makeBusReader()
        bus.start()
        do {
            try pipeline.setState(.playing)
        } catch {
            bus.stop()
            _ = try? pipeline.setState(.null)
            throw .speaker(pipeline.popError(timeout: .zero).map(words) ?? "\(error)")
        }
        return SoundPlayback(sound: sound, durationMs: duration, pipeline: pipeline, bus: bus)
    }

    /// To PAUSED within 5 s, or the first error, classified by the element that said it.
    private static func preroll(_ pipeline: Pipeline, file: String) throws(Failure) {
        let reached: Bool
        do {
            try pipeline.setState(.paused)
            let (state, ok) = pipeline.state(timeout: ClockTime(seconds: 5))
            reached = ok && state == .paused
        } catch {
            reached = false
        }
        guard !reached else { return }
        let error = pipeline.popError(timeout: ClockTime(milliseconds: 200))
        _ = try? pipeline.setState(.null)
        throw classify(error, file: file) ?? .file("\(file) gave no sound within 5 s")
    }

    /// The file's part (filesrc, decodebin and what it made) or the speaker's (everything after `volume`).
    package static func classify(_ error: GStreamerError?, file: String) -> Failure? {
        guard let error else { return nil }
        let fromFile =
            ["/file", "/decode"].contains { error.element.contains($0) } || error.message.contains("not-negotiated")
        return fromFile ? .file("cannot play \(file): \(words(error))") : .speaker(words(error))
    }

    /// GStreamer's message with the detail its debug text ends in ("Playback open error on device 'hw:2': No such
    /// file or directory"), when that says more.
    package static func words(_ error: GStreamerError) -> String {
        guard let detail = error.debug?.split(separator: "\n").last.map(String.init), !detail.contains("(): "),
            !detail.isEmpty, !error.message.contains(detail)
        else { return error.message }
        return "\(error.message) (\(detail))"
    }

    /// How long it has played.
    package var playedMs: Int { Int((ContinuousClock.now - started) / .milliseconds(1)) }

    /// Stops it at once and closes the speaker's device. Blocking (a state change).
    package func stop() {
        _ = try? pipeline.setState(.null)
        bus.stop()
    }
}
