import ApplianceBase
import ApplianceProtocol
import Foundation
import GStreamerKit
import Logging
import ServiceLifecycle

/// The speaker (`[speaker]`): plays one sound at a time, each in a pipeline of its own (`SoundPlayback`); a new
/// sound cuts the one playing short, as a doorbell does. A file that is not sound is the caller's error
/// (`bad_request`); a speaker that cannot play is `unavailable`, a line in status and a `speaker_failed` event, and
/// the next sound tries it again. Nothing here touches the recording's pipeline. As a service it follows each
/// sound to its end (`speaker_played`) and stops the one playing at shutdown.
package actor Speaker: Service {
    package nonisolated let sink: SpeakerSink
    private let volume: Double
    /// The microphone's echo canceller's reference, fed by every sound and talk (nil: none).
    private let echo: EchoReference?
    private let chimes: [SpeakerChime: String]
    private let events: EventHub
    private let logger: Logger
    private var current: SoundPlayback?
    private var lastError: String?
    private var played: UInt64 = 0
    /// Someone talking from the dashboard (one at a time): who, and the speaker's talk pipeline.
    private var talk: (talker: String, output: TalkOutput)?
    /// Sounds started, for `run` to follow to their end.
    private nonisolated let started: AsyncStream<SoundPlayback>
    private nonisolated let startedContinuation: AsyncStream<SoundPlayback>.Continuation

    /// `chimes`: the chimes' files (`Chimes.write`).
    package init(
        sink: SpeakerSink, volume: Double, echo: EchoReference? = nil, chimes: [SpeakerChime: String], events: EventHub,
        logger: Logger
    ) {
        (self.sink, self.volume, self.echo, self.chimes, self.events, self.logger) = (
            sink, volume, echo, chimes, events, logger
        )
        (started, startedContinuation) = AsyncStream.makeStream(of: SoundPlayback.self)
    }

    package func play(_ request: PlayRequest) async throws(ApplianceError) -> PlayResult {
        if talk != nil {
            throw ApplianceError(.conflict, "someone is talking on the speaker; \(request.sound) is not played")
        }
        guard let file = request.chime.map({ chimes[$0] }) ?? request.file else {
            throw ApplianceError(.internalError, "the chime '\(request.sound)' was not made at start")
        }
        let interrupted = current
        if let interrupted { await end(interrupted, interrupted: true) }
        let (sink, volume, echo, sound) = (sink, volume, echo, request.sound)
        let outcome = try? await blocking { () -> Result<SoundPlayback, SoundPlayback.Failure> in
            do throws(SoundPlayback.Failure) {
                return .success(
                    try SoundPlayback.start(file: file, sound: sound, sink: sink, volume: volume, echo: echo))
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let playback)?:
            // The actor was free while the sound started: another sound or a talker may have come meanwhile. The
            // checks below and the assignment run without a suspension between them.
            while let other = current { await end(other, interrupted: true) }
            if talk != nil {
                _ = try? await blocking { playback.stop() }
                throw ApplianceError(.conflict, "someone is talking on the speaker; \(sound) is not played")
            }
            current = playback
            lastError = nil
            startedContinuation.yield(playback)
            logger.info("speaker: playing \(sound)", metadata: ["speaker": "\(sink.label)"])
            return PlayResult(
                sound: sound, durationMs: playback.durationMs, speaker: sink.label, interrupted: interrupted?.sound)
        case .failure(.file(let reason))?:
            logger.warning("speaker: \(reason)")
            throw ApplianceError(.badRequest, reason)
        case .failure(.speaker(let reason))?:
            failed(sound, reason)
            throw ApplianceError(.unavailable, "the speaker (\(sink.label)) cannot play: \(reason)")
        case nil:
            throw ApplianceError(.unavailable, "the appliance is shutting down")
        }
    }

    package func status() -> SpeakerStatus {
        SpeakerStatus(
            state: talk != nil ? .talking : current != nil ? .playing : lastError != nil ? .error : .idle,
            speaker: sink.label,
            playing: talk != nil ? "talk" : current?.sound, error: lastError, played: played, echoCancel: echo != nil)
    }

    /// `talker` (a WebRTC session) takes the speaker: the sound playing is cut short and the talk pipeline opened;
    /// returns the appsrc its sound goes to. One talker at a time: another is refused (`conflict`).
    package func startTalk(_ talker: String) async throws(ApplianceError) -> Element {
        if let talk {
            guard talk.talker == talker else {
                let seconds = Int((ContinuousClock.now - talk.output.started) / .seconds(1))
                throw ApplianceError(.conflict, "someone else is talking (for \(seconds) s): one at a time")
            }
            return talk.output.input
        }
        if let current { await end(current, interrupted: true) }
        let (sink, volume, echo) = (sink, volume, echo)
        let opened = try? await blocking { () -> Result<TalkOutput, GStreamerError> in
            do { return .success(try TalkOutput(sink: sink, volume: volume, echo: echo)) } catch {
                return .failure(error as? GStreamerError ?? GStreamerError(element: "talk", message: "\(error)"))
            }
        }
        switch opened {
        case .success(let output)?:
            // The actor was free while the speaker opened: a sound or another talker may have come meanwhile. The
            // check below and the assignment run without a suspension between them.
            while let sound = current { await end(sound, interrupted: true) }
            if let other = talk {
                _ = try? await blocking { output.stop() }
                guard other.talker == talker else {
                    throw ApplianceError(.conflict, "someone else is talking (for 0 s): one at a time")
                }
                return other.output.input
            }
            talk = (talker, output)
            logger.info("speaker: talk started", metadata: ["speaker": "\(sink.label)"])
            return output.input
        case .failure(let error)?:
            failed("talk", SoundPlayback.words(error))
            throw ApplianceError(.unavailable, "the speaker (\(sink.label)) cannot play: \(SoundPlayback.words(error))")
        case nil:
            throw ApplianceError(.unavailable, "the appliance is shutting down")
        }
    }

    /// `talker` lets the speaker go (released the button, or its session ended); nothing when it was not talking.
    package func endTalk(_ talker: String) async {
        guard let talk, talk.talker == talker else { return }
        self.talk = nil
        let output = talk.output
        _ = try? await blocking { output.stop() }
        played += 1
        let ms = Int((ContinuousClock.now - output.started) / .milliseconds(1))
        logger.info("speaker: talk ended", metadata: ["ms": "\(ms)"])
        events.publish(.speakerPlayed(SpeakerPlayback(sound: "talk", playedMs: ms, interrupted: false)))
    }

    package func run() async throws {
        await withDiscardingTaskGroup { group in
            for await playback in started.cancelOnGracefulShutdown() {
                group.addTask { await self.follow(playback) }
            }
            if let current { await end(current, interrupted: true) }
            if let talk { await endTalk(talk.talker) }
        }
    }

    /// Waits for the sound's end or its sink's error (the bus closes when the sound is stopped).
    private func follow(_ playback: SoundPlayback) async {
        for await message in playback.messages {
            switch message {
            case .endOfStream:
                await end(playback, interrupted: false)
                return
            case .error(let error):
                await end(playback, interrupted: true)
                if case .file(let reason)? = SoundPlayback.classify(error, file: playback.sound) {
                    logger.warning("speaker: \(reason)")
                } else {
                    failed(playback.sound, SoundPlayback.words(error))
                }
                return
            default:
                continue
            }
        }
    }

    /// Stops `playback` if it is still the one playing, and says so.
    private func end(_ playback: SoundPlayback, interrupted: Bool) async {
        guard current === playback else { return }
        current = nil
        _ = try? await blocking { playback.stop() }
        if !interrupted { played += 1 }
        events.publish(
            .speakerPlayed(
                SpeakerPlayback(sound: playback.sound, playedMs: playback.playedMs, interrupted: interrupted)))
    }

    private func failed(_ sound: String, _ reason: String) {
        lastError = reason
        logger.error("speaker (\(sink.label)) cannot play \(sound): \(reason)")
        events.publish(.speakerFailed(SpeakerFailure(sound: sound, reason: reason)))
    }
}
