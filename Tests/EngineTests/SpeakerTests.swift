import ApplianceBase
import ApplianceProtocol
import Foundation
import GStreamerKit
import Logging
import Settings
import XCTest

@testable import Engine

/// The speaker's parts that need no daemon: the chimes as files GStreamer reads, which sink `[speaker]` means,
/// which events call for which chime, and how a failure is told apart (the file or the speaker).
final class SpeakerPartsTests: XCTestCase {
    func testEveryChimeIsAShortWAVThatGStreamerReadsAtItsLength() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "chimes-\(UUID().uuidString.prefix(8))"
        ).path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let paths = try Chimes.write(to: folder)
        XCTAssertEqual(Set(paths.keys), Set(SpeakerChime.allCases))
        for chime in SpeakerChime.allCases {
            let info = try Discoverer.inspect(path: try XCTUnwrap(paths[chime]))
            XCTAssertEqual(info.audio.first?.sampleRate, 48_000, chime.rawValue)
            XCTAssertEqual(info.audio.first?.channels, 1, chime.rawValue)
            let expected = Double(Chimes.notes(chime).reduce(0) { $0 + $1.ms }) / 1000
            XCTAssertEqual(
                Double(try XCTUnwrap(info.duration).nanoseconds) / 1e9, expected, accuracy: 0.002, chime.rawValue)
            XCTAssertLessThanOrEqual(expected, 1.0, "\(chime.rawValue) is short")
        }
        let start = Chimes.samples(Chimes.notes(.recordingStarted))
        XCTAssertEqual(start.first ?? 1, 0, accuracy: 1e-9, "a soft attack: no click")
        XCTAssertLessThanOrEqual(start.map(abs).max() ?? 1, 0.5, "half scale")
    }

    func testTheEchoCancellerIsForASoundCardWithASpeakerAndOnMustBeHonoured() throws {
        var config = ApplianceConfig()
        config.speaker.pipeline = "fakesink"
        XCTAssertTrue(try EchoReference.wanted(config, audioKind: "alsa"), "auto: a sound card and a speaker")
        XCTAssertFalse(try EchoReference.wanted(config, audioKind: "test"), "auto: not a test source")
        XCTAssertFalse(try EchoReference.wanted(config, audioKind: "none"))
        config.speaker.echoCancel = "on"
        XCTAssertTrue(try EchoReference.wanted(config, audioKind: "test"))
        config.audio.rate = 44_100
        XCTAssertThrowsError(try EchoReference.wanted(config, audioKind: "alsa")) { error in
            XCTAssertTrue("\(error)".contains("[audio] rate 44100"), "\(error)")
        }
        config.speaker.echoCancel = "auto"
        XCTAssertFalse(
            try EchoReference.wanted(config, audioKind: "alsa"), "auto: off at a rate webrtcdsp does not take")
        config.audio.rate = 48_000
        config.speaker = ApplianceConfig.Speaker(device: "none")
        config.speaker.echoCancel = "on"
        XCTAssertThrowsError(try EchoReference.wanted(config, audioKind: "alsa")) { error in
            XCTAssertTrue("\(error)".contains("there is no speaker"), "\(error)")
        }
        config.speaker.echoCancel = "off"
        XCTAssertFalse(try EchoReference.wanted(config, audioKind: "alsa"))
    }

    func testTheSinkIsThePipelineElseTheDeviceElseNone() {
        var speaker = ApplianceConfig.Speaker()
        speaker.device = "none"
        XCTAssertNil(SpeakerSink.resolve(speaker))
        speaker.device = "hw:1,0"
        XCTAssertEqual(
            SpeakerSink.resolve(speaker), SpeakerSink(description: "alsasink device=\"hw:1,0\"", label: "alsa hw:1,0"))
        speaker.pipeline = "pulsesink"
        XCTAssertEqual(SpeakerSink.resolve(speaker)?.label, "pulsesink", "a pipeline wins over the device")
        speaker = ApplianceConfig.Speaker()
        XCTAssertEqual(
            SpeakerSink.resolve(speaker) != nil, SpeakerSink.hasPlaybackCard() && GStreamer.hasElement("alsasink"),
            "auto: ALSA's default only when there is a playback device")
    }

    func testFeedbackChimesFollowWhatHappened() {
        XCTAssertEqual(SpeakerFeedback.chime(for: .locked(ClipEvent(id: "a"))), .protected)
        XCTAssertEqual(SpeakerFeedback.chime(for: .error(PipelineError(source: "/x", message: "m"))), .error)
        XCTAssertEqual(SpeakerFeedback.chime(for: .cameraFailed(CameraFailure(camera: "c", reason: "r"))), .error)
        XCTAssertNil(SpeakerFeedback.chime(for: .renamed(Renamed(id: "a", title: "b"))))
        XCTAssertNil(
            SpeakerFeedback.chime(for: .speakerFailed(SpeakerFailure(sound: "s", reason: "r"))),
            "never a chime about the speaker")
    }

    func testAFailureIsTheFilesOrTheSpeakers() {
        let typefind = GStreamerError(
            element: "/speaker/sound/decode/typefind",
            message: "Could not determine type of stream.")
        guard case .file(let reason)? = SoundPlayback.classify(typefind, file: "/a.ogg") else {
            return XCTFail("the file's")
        }
        XCTAssertEqual(reason, "cannot play /a.ogg: Could not determine type of stream.")
        let sink = GStreamerError(
            element: "/speaker/sound/alsasink0", message: "Could not open audio device for playback.",
            debug:
                """
                gstalsasink.c(898): gst_alsasink_open (): /GstPipeline:speaker:\nPlayback open error on device \
                'hw:2': No such device
                """
        )
        guard case .speaker(let words)? = SoundPlayback.classify(sink, file: "/a.ogg") else {
            return XCTFail("the speaker's")
        }
        XCTAssertEqual(
            words, "Could not open audio device for playback. (Playback open error on device 'hw:2': No such device)")
    }
}

/// The speaker's rules with real pipelines (a fakesink as the speaker): one talker at a time, no sound played over a
/// talker, and the speaker free again once the talker lets go.
final class SpeakerTalkTests: XCTestCase {
    /// Sounds asked for at once (the actor is free while each one's pipeline starts): one is left playing and
    /// every other was cut short and said so, none left playing unseen.
    func testSoundsAskedForTogetherLeaveOnePlaying() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sounds-\(UUID().uuidString.prefix(8))"
        ).path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let events = EventHub()
        let subscription = events.subscribe()
        let speaker = Speaker(
            sink: SpeakerSink(description: "fakesink sync=true", label: "fake"), volume: 1,
            chimes: try Chimes.write(to: folder),
            events: events, logger: Logger(label: "test"))
        let started = await withTaskGroup(of: Bool.self) { group in
            for chime in [SpeakerChime.chime, .error, .protected, .storageLow, .recordingStarted] {
                group.addTask { (try? await speaker.play(PlayRequest(chime: chime))) != nil }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        XCTAssertEqual(started, 5)
        let playing = await speaker.status().state
        XCTAssertEqual(playing, .playing)
        var cut = 0
        for await record in subscription.events {
            if case .speakerPlayed(let p) = record.event, p.interrupted { cut += 1 }
            if cut == 4 { break }
        }
        XCTAssertEqual(cut, 4, "each sound but the last was cut short, and said so")
    }

    func testOneTalkerAtATimeAndNoSoundOverATalker() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "talk-\(UUID().uuidString.prefix(8))"
        ).path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let events = EventHub()
        let subscription = events.subscribe()
        let speaker = Speaker(
            sink: SpeakerSink(description: "fakesink sync=true", label: "fake"), volume: 1,
            chimes: try Chimes.write(to: folder),
            events: events, logger: Logger(label: "test"))
        let input = try await speaker.startTalk("anna")
        XCTAssertEqual(input.name, "talk")
        let talking = await speaker.status().state
        XCTAssertEqual(talking, .talking)
        let again = try await speaker.startTalk("anna")
        XCTAssertTrue(again === input, "the same talker keeps the speaker")
        do {
            _ = try await speaker.startTalk("bert")
            XCTFail("a second talker is refused")
        } catch {
            XCTAssertEqual(error.code, .conflict)
            XCTAssertTrue(error.message.hasPrefix("someone else is talking (for 0 s)"), error.message)
        }
        do {
            _ = try await speaker.play(PlayRequest(chime: .chime))
            XCTFail("no chime over a talker")
        } catch {
            XCTAssertEqual(error.code, .conflict)
        }
        await speaker.endTalk("bert")
        let stillTalking = await speaker.status().state
        XCTAssertEqual(stillTalking, .talking, "only the talker lets go")
        await speaker.endTalk("anna")
        let afterwards = await speaker.status().state
        XCTAssertEqual(afterwards, .idle)
        let played = await speaker.status().played
        XCTAssertEqual(played, 1)
        for await record in subscription.events {
            if case .speakerPlayed(let p) = record.event {
                XCTAssertEqual(p.sound, "talk")
                break
            }
        }
        _ = try await speaker.startTalk("bert")
        await speaker.endTalk("bert")
    }
}
