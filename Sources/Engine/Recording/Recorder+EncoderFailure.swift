import ApplianceBase
import ApplianceProtocol
import Foundation

extension Recorder {
    /// The video encoder failed: the file being recorded ends with the last frame the encoder gave (reason
    /// `encoder_failed`, the note saying why), before a new encoder is linked in (a file takes one encoder's
    /// stream). Returns whether something was recording, and its requested title, to go on with in a new file.
    /// The frames the failed encoder gave before are in that file, or older than it: no later clip takes them.
    package func endForEncoderFailure(note: String) async -> (wasRecording: Bool, title: String?) {
        guard case .recording(let active) = phase else { return (false, nil) }
        graph.outputs.takeRetired()
        logger.error("recording \(active.session.id): \(note); ending it, recording goes on in a new file")
        do {
            _ = try await stop(title: nil, reason: .encoderFailed, note: note)
        } catch {
            logger.error("recording \(active.session.id) could not be finalised after the encoder failed: \(error)")
        }
        return (true, active.requestedTitle)
    }

    /// A failover begins: until it ends, a recording asked for takes the frames the failed encoder gave before
    /// (its pre-roll) and is ended and continued by the failover; without those, it waits for the new encoder.
    package func beginEncoderChange(note: String) {
        encoderChange = OneShot<Bool>()
        failoverNote = note
    }

    package func endEncoderChange() {
        encoderChange?.fire(true)
        encoderChange = nil
    }

    /// Starts a recording as `start` does, with what a failover changes. With the frames the failed encoder gave
    /// before within reach (a failure less than `pre_record_s` ago, which no clip has taken): they make a file of
    /// their own first — ended by the failover under way, or at once after it, the recording going on in a new
    /// file from the new encoder's first frame (which follows the failed one's last: the raw frames were held).
    /// During a failover without them, the start waits for the new encoder (a file takes one encoder's stream).
    func startAcrossEncoderChange(title: String?) async throws -> RecordingStarted {
        guard case .idle = phase, let retired = graph.outputs.attachRetired() else {
            if let change = encoderChange { _ = await change.wait(timeout: .seconds(20)) }
            return try await startFile(title: title, retired: nil)
        }
        let before = try await startFile(title: title, retired: retired)
        guard encoderChange == nil else { return before }
        _ = try? await stop(title: nil, reason: .encoderFailed, note: failoverNote ?? "the encoder failed")
        return try await startFile(title: title, retired: nil, fromWindowStart: true)
    }

    /// The recording that an encoder's failure ended goes on: from the new encoder's first frame, which follows the
    /// failed one's last (with pre-record; without, from now).
    package func continueAfterEncoderChange(title: String?) async throws -> RecordingStarted {
        try await startFile(title: title, retired: nil, fromWindowStart: true)
    }
}
