import Foundation

extension Recorder {
    /// Writes the row's `started_at` as its first frame's time, once that frame is in the file. The row is written
    /// at the request (`created_at`), but pre-record reaches back up to its window before that, and a file that a
    /// crash cuts short is judged from its row: an event whose start lay in the pre-roll was counted as not covered
    /// (the chaos soak: 4 of 51, each one a camera's arrival seen as motion, its clip SIGKILLed later). A clock that
    /// jumped meanwhile has moved the row (`redatedMs`): the first frame moves with it.
    func noteFirstFrame() async {
        guard case .recording(var active) = phase, !active.firstFrameNoted, let first = active.session.firstFrameDate else { return }
        active.firstFrameNoted = true
        phase = .recording(active)
        do {
            _ = try await library.update(id: active.session.id) { row in
                row.startedAt = first.addingTimeInterval(Double(row.redatedMs ?? 0) / 1000)
            }
        } catch {
            logger.warning("recording \(active.session.id): cannot note its first frame's time: \(error)")
        }
    }
}
