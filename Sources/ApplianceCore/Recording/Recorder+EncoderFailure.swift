import ApplianceProtocol
import Foundation

extension Recorder {
    /// The video encoder failed: the file being recorded ends with the last frame the encoder gave (reason
    /// `encoder_failed`, the note saying why), before a new encoder is linked in (a file takes one encoder's
    /// stream). Returns whether something was recording, and its requested title, to go on with in a new file.
    func endForEncoderFailure(note: String) async -> (wasRecording: Bool, title: String?) {
        guard case .recording(let active) = phase else { return (false, nil) }
        logger.error("recording \(active.session.id): \(note); ending it, recording goes on in a new file")
        do {
            _ = try await stop(title: nil, reason: .encoderFailed, note: note)
        } catch {
            logger.error("recording \(active.session.id) could not be finalised after the encoder failed: \(error)")
        }
        return (true, active.requestedTitle)
    }
}
