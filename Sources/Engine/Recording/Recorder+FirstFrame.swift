import ApplianceProtocol
import Foundation

extension Recorder {
    /// Writes the row's `started_at` as its first frame's time, once that frame is in the file. The row is written
    /// at the request (`created_at`), but pre-record reaches back up to its window before that, and a file that a
    /// crash cuts short is judged from its row: an event whose start lay in the pre-roll was counted as not covered
    /// (the chaos soak: 4 of 51, each one a camera's arrival seen as motion, its clip SIGKILLed later).
    func noteFirstFrame() async {
        guard case .recording(var active) = phase, !active.firstFrameNoted, active.session.firstFrameDate != nil else {
            return
        }
        active.firstFrameNoted = true
        phase = .recording(active)
        let session = active.session
        do {
            _ = try await library.update(id: session.id) { session.noteFirstFrame(in: &$0) }
        } catch {
            logger.warning("recording \(active.session.id): cannot note its first frame's time: \(error)")
        }
    }
}

extension RecordingSession {
    /// Sets `row`'s `started_at` to the first frame's time (`firstFrameDate`): a clock that jumped since the row was
    /// written has moved the row (`redatedMs`), and the first frame moves with it. Unchanged until that frame is in
    /// the file.
    func noteFirstFrame(in row: inout Recording) {
        guard let first = firstFrameDate else { return }
        row.startedAt = first.addingTimeInterval(Double(row.redatedMs ?? 0) / 1000)
    }
}
