import ApplianceBase
import Foundation
import Logging
import ServiceLifecycle

/// Writes each scrubbing frame into the pack of the file being recorded when it was captured. Frames of the last
/// `backlog` are kept in memory, so a recording with pre-roll (whose first frame is older than its start) gets
/// previews from its first frame too.
package struct ScrubWriter: Service {
    package let scrub: ScrubFrames
    package let logger: Logger

    package init(scrub: ScrubFrames, logger: Logger) {
        self.scrub = scrub
        self.logger = logger
    }
    /// Enough for `[recording] pre_record_s` (at most 60 s) and a little more.
    package static let backlog: UInt64 = 70_000_000_000

    package func run() async {
        await cancelWhenGracefulShutdown {
            var state = State()
            for await frame in scrub.frames { state.take(frame, ranges: scrub, logger: logger) }
        }
    }

    package struct State {
        package var recent: [ScrubFrames.Frame] = []
        /// By file id: the running time of its last frame written.
        package var written: [String: UInt64] = [:]
        package var failed: Set<String> = []

        package mutating func take(_ frame: ScrubFrames.Frame, ranges scrub: ScrubFrames, logger: Logger) {
            recent.append(frame)
            recent.removeAll { $0.runningTime + ScrubWriter.backlog < frame.runningTime }
            let ranges = scrub.ranges(forgettingBefore: frame.runningTime, keep: ScrubWriter.backlog)
            written = written.filter { id, _ in ranges.contains { $0.id == id } }
            for range in ranges where !failed.contains(range.id) {
                // What this file has not had yet: the backlog's frames for a file that just began, else this one.
                let after = written[range.id]
                let due = recent.filter { f in range.holds(f.runningTime) && (after.map { f.runningTime > $0 } ?? true)
                }
                guard let last = due.last else { continue }
                var records = Data()
                // A file's first preview is its first moment: the frame just before it began, when it is that recent.
                if after == nil,
                    let opening = recent.last(where: {
                        $0.runningTime < range.start && range.start - $0.runningTime < scrub.interval
                    })
                {
                    records.append(ScrubPack.record(jpeg: opening.jpeg, offsetMs: 0))
                }
                for f in due {
                    records.append(
                        ScrubPack.record(
                            jpeg: f.jpeg, offsetMs: UInt32(clamping: (f.runningTime - range.start) / 1_000_000)))
                }
                do {
                    try ScrubPack.append(records, to: range.path)
                    written[range.id] = last.runningTime
                } catch {
                    failed.insert(range.id)
                    logger.warning("scrubbing previews of \(range.id) cannot be written to \(range.path): \(error)")
                }
            }
        }
    }
}
