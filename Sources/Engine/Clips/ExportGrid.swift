import ApplianceBase
import GStreamerKit

/// Lays a joined stream back on its own grid. splitmuxsrc places each part after the previous one by the part's
/// shorter stream and ignores the audio's initial empty edit, so after a segment whose audio ends one AAC frame
/// early every later buffer of the export came 16 ms early (a 10 s export measured 9.968 s of audio). The segments
/// partition both streams without gaps, so each buffer belongs exactly one duration after the one before it: the
/// probe moves it there (PTS and DTS together), counting from the first buffer. Streaming thread; no blocking.
package final class ExportGrid: Sendable {

    package init() {
    }
    private struct State {
        var next: UInt64?
        var lastDecode: UInt64?
    }
    private let state = Locked(State())

    /// Adds the probe to `pad` (a parser's source pad, whose buffers carry durations).
    package static func attach(to pad: Pad) {
        let grid = ExportGrid()
        pad.addProbe(.buffer) { info in
            guard let buffer = info.buffer else { return .ok }
            if let delta = grid.correction(
                decodeTime: buffer.dts == ClockTime.none ? buffer.pts : buffer.dts,
                duration: buffer.duration), delta != 0
            {
                info.shiftBufferTiming(by: delta)
            }
            return .ok
        }
    }

    /// How far to move a buffer with this decode time and duration; nil when its timing is unknown.
    package func correction(decodeTime: UInt64, duration: UInt64) -> Int64? {
        guard decodeTime != ClockTime.none, duration != ClockTime.none, duration > 0 else { return nil }
        return state.withLock { s in
            let expected = s.next ?? decodeTime
            s.next = expected + duration
            return Int64(bitPattern: expected) - Int64(bitPattern: decodeTime)
        }
    }
}
