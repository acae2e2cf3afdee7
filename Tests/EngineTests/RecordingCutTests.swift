import XCTest

@testable import Engine

/// The frame-exact cut rules, buffer by buffer: the boundary cases the end-to-end recording, segment and pre-record
/// tests found, without a pipeline. Times in ms on a 30 fps grid (interval 33.333 ms) unless a test says otherwise.
final class RecordingCutTests: XCTestCase {
    let ms: UInt64 = 1_000_000
    let interval: UInt64 = 33_333_333
    let aacFrame: UInt64 = 21_333_333  // 1024 samples at 48 kHz

    private func frame(_ n: UInt64, from start: UInt64 = 1_000_000_000) -> UInt64 { start + n * interval }

    func testVideoWaitsForAKeyframeAtOrAfterItsStart() {
        var cut = RecordingCut(frameInterval: interval)
        cut.videoFrom = frame(3)
        XCTAssertEqual(
            cut.video(at: frame(2), keyframe: true, clock: nil, gateStart: nil), .drop, "a keyframe before the start")
        XCTAssertEqual(cut.video(at: frame(3), keyframe: false, clock: nil, gateStart: nil), .drop, "not a keyframe")
        XCTAssertEqual(cut.video(at: .max, keyframe: true, clock: nil, gateStart: nil), .drop, "no timestamp")
        XCTAssertEqual(cut.video(at: frame(4), keyframe: true, clock: 7, gateStart: nil), .start)
        XCTAssertEqual(cut.timing.videoFirst, frame(4))
        XCTAssertEqual(cut.timing.firstFrameClock, 7)
        XCTAssertEqual(cut.audioFrom, frame(4), "without a planned audio start, the audio starts with the first frame")
        XCTAssertEqual(cut.video(at: frame(5), keyframe: false, clock: 8, gateStart: nil), .keep)
        XCTAssertEqual(cut.timing.videoFrames, 2)
        XCTAssertEqual(cut.timing.lastFrameClock, 8)
    }

    func testAFreshStartTakesTheGatesFirstFrameOnlyWhileWaiting() {
        var cut = RecordingCut(frameInterval: interval)
        var asked = 0
        func gate() -> UInt64? {
            asked += 1
            return frame(1)
        }
        XCTAssertEqual(cut.video(at: frame(0), keyframe: true, clock: nil, gateStart: gate()), .drop)
        XCTAssertEqual(cut.video(at: frame(1), keyframe: true, clock: nil, gateStart: gate()), .start)
        XCTAssertEqual(cut.video(at: frame(2), keyframe: true, clock: nil, gateStart: gate()), .keep)
        XCTAssertEqual(asked, 2, "the gate is read only while the video waits")
        var closed = RecordingCut(frameInterval: interval)
        XCTAssertEqual(
            closed.video(at: frame(1), keyframe: true, clock: nil, gateStart: nil), .drop,
            "the gate has admitted nothing yet")
    }

    func testTheStopIsAFrameBoundaryWithHalfAFrameOfJitter() {
        var cut = RecordingCut(frameInterval: interval)
        cut.videoFrom = frame(0)
        XCTAssertEqual(cut.video(at: frame(0), keyframe: true, clock: nil, gateStart: nil), .start)
        cut.stopAt = cut.frameBoundary(atOrAfter: frame(2) + 5 * ms)
        XCTAssertEqual(cut.stopAt, frame(3), "the frame showing at the stop is the last one in")
        XCTAssertEqual(cut.video(at: frame(1), keyframe: false, clock: nil, gateStart: nil), .keep)
        XCTAssertEqual(
            cut.video(at: frame(2) + 1, keyframe: false, clock: nil, gateStart: nil), .keep, "a late timestamp")
        XCTAssertEqual(
            cut.video(at: frame(3) - 1, keyframe: false, clock: nil, gateStart: nil), .end,
            "a frame a nanosecond short of the stop is at it")
        XCTAssertEqual(cut.video(at: frame(4), keyframe: true, clock: nil, gateStart: nil), .drop, "ended")
        XCTAssertEqual(cut.timing.videoFrames, 3)
        XCTAssertEqual(cut.timing.durationMs, 100)
    }

    func testFrameBoundaryBeforeTheFirstFrameIsTheTimeItself() {
        var cut = RecordingCut(frameInterval: interval)
        XCTAssertEqual(cut.frameBoundary(atOrAfter: 123), 123)
        cut.videoFrom = 0
        _ = cut.video(at: frame(0), keyframe: true, clock: nil, gateStart: nil)
        XCTAssertEqual(cut.frameBoundary(atOrAfter: frame(0)), frame(0), "at the first frame")
        XCTAssertEqual(cut.frameBoundary(atOrAfter: frame(0) + 1), frame(1))
        XCTAssertEqual(cut.frameBoundary(atOrAfter: frame(1)), frame(1), "on the grid already")
    }

    func testASegmentEndsBeforeTheFirstKeyframeAtTheCutAndTheNextStartsOnIt() {
        let cutTime = frame(10)
        var current = RecordingCut(frameInterval: interval)
        current.videoFrom = frame(0)
        _ = current.video(at: frame(0), keyframe: true, clock: nil, gateStart: nil)
        current.cutAt = cutTime
        var next = RecordingCut(frameInterval: interval)
        (next.videoFrom, next.audioFrom) = (cutTime - interval / 2, cutTime)

        XCTAssertEqual(
            current.video(at: frame(10), keyframe: false, clock: nil, gateStart: nil), .keep,
            "past the cut, frames stay until a keyframe comes: every frame goes to one file")
        XCTAssertEqual(next.video(at: frame(10), keyframe: false, clock: nil, gateStart: nil), .drop)
        XCTAssertEqual(
            current.video(at: frame(11) - 1, keyframe: true, clock: nil, gateStart: nil), .end,
            "the keyframe (a nanosecond short of the grid) opens the next file")
        XCTAssertEqual(next.video(at: frame(11) - 1, keyframe: true, clock: nil, gateStart: nil), .start)
        XCTAssertEqual(current.timing.videoFrames, 2, "frames 0 and 10")
    }

    func testAKeyframeJustBeforeTheCutStaysInTheFileBeforeIt() {
        var cut = RecordingCut(frameInterval: interval)
        cut.videoFrom = frame(0)
        _ = cut.video(at: frame(0), keyframe: true, clock: nil, gateStart: nil)
        cut.cutAt = frame(5)
        XCTAssertEqual(cut.video(at: frame(4), keyframe: true, clock: nil, gateStart: nil), .keep)
        XCTAssertEqual(
            cut.video(at: frame(5) - interval / 2 - 1, keyframe: true, clock: nil, gateStart: nil), .keep,
            "more than half a frame before the cut")
        XCTAssertEqual(cut.video(at: frame(5) - interval / 2, keyframe: true, clock: nil, gateStart: nil), .end)
    }

    func testAudioBelongsToTheFileInWhichItStarts() {
        let start = frame(0)
        var cut = RecordingCut(frameInterval: interval)
        cut.audioFrom = start
        XCTAssertEqual(
            cut.audio(at: start - 10 * ms, duration: aacFrame), .drop, "straddles the start: in the file before")
        XCTAssertEqual(cut.audio(at: start + 11 * ms, duration: aacFrame), .start)
        XCTAssertEqual(cut.timing.audioFirst, start + 11 * ms)
        cut.stopAt = frame(3)
        XCTAssertEqual(cut.audio(at: frame(3) - 1 * ms, duration: aacFrame), .keep, "straddles the stop: in this file")
        XCTAssertEqual(cut.timing.audioEnd, frame(3) - 1 * ms + aacFrame)
        XCTAssertEqual(cut.audio(at: frame(3), duration: aacFrame), .end, "starts at the stop")
        XCTAssertEqual(cut.audio(at: frame(4), duration: aacFrame), .drop)
        XCTAssertEqual(cut.timing.audioBuffers, 2)
    }

    /// Fed by the pre-record window: each stream ends on its last buffer before the stop (kept, EOS after it), so
    /// the buffer after it can stay in the window for the next clip; a loop cut still ends on the cut keyframe.
    func testAWindowFedClipEndsOnItsLastBufferBeforeTheStop() {
        var cut = RecordingCut(frameInterval: interval)
        cut.endsBeforeTheStop = true
        (cut.videoFrom, cut.audioFrom) = (frame(0), frame(0))
        XCTAssertEqual(cut.video(at: frame(0), keyframe: true, clock: nil, gateStart: nil), .start)
        XCTAssertEqual(cut.audio(at: frame(0), duration: aacFrame), .start)
        XCTAssertEqual(cut.video(at: frame(1), keyframe: false, clock: nil, gateStart: nil), .keep, "no stop asked yet")
        cut.stopAt = frame(3)
        XCTAssertEqual(
            cut.video(at: frame(2) + 1, keyframe: false, clock: nil, gateStart: nil), .last,
            "the next frame is due at the stop")
        XCTAssertEqual(
            cut.video(at: frame(3), keyframe: true, clock: nil, gateStart: nil), .drop,
            "after the last: left for the next clip")
        XCTAssertEqual(cut.timing.videoFrames, 3)
        XCTAssertEqual(cut.timing.videoLast, frame(2) + 1)
        XCTAssertEqual(cut.audio(at: frame(3) - aacFrame - 1, duration: aacFrame), .keep, "ends before the stop")
        XCTAssertEqual(
            cut.audio(at: frame(3) - aacFrame, duration: aacFrame), .last, "ends at the stop: the next starts there")
        XCTAssertEqual(cut.audio(at: frame(3), duration: aacFrame), .drop)

        var early = RecordingCut(frameInterval: interval)
        early.endsBeforeTheStop = true
        early.videoFrom = frame(0)
        XCTAssertEqual(early.video(at: frame(0), keyframe: true, clock: nil, gateStart: nil), .start)
        early.stopAt = frame(1)
        XCTAssertEqual(
            early.video(at: frame(1), keyframe: false, clock: nil, gateStart: nil), .end,
            "a stop asked after its last frame passed: ended on the next one, as without the window")
    }

    func testAudioEndsAtTheCutToo() {
        var cut = RecordingCut(frameInterval: interval)
        cut.audioFrom = 0
        XCTAssertEqual(cut.audio(at: 0, duration: .max), .start)
        XCTAssertEqual(cut.timing.audioEnd, 0, "an unknown duration adds nothing")
        cut.cutAt = frame(2)
        XCTAssertEqual(cut.audio(at: frame(2) - 1, duration: aacFrame), .keep)
        XCTAssertEqual(cut.audio(at: frame(2), duration: aacFrame), .end)
    }

    func testAudioWaitsWhileItsStartIsUnknown() {
        // Pre-record: the audio's start is the first video frame, unknown until that frame comes.
        var cut = RecordingCut(frameInterval: interval)
        cut.videoFrom = frame(0)
        XCTAssertEqual(cut.audio(at: frame(1), duration: aacFrame), .drop)
        XCTAssertEqual(cut.video(at: frame(2), keyframe: true, clock: nil, gateStart: nil), .start)
        XCTAssertEqual(cut.audio(at: frame(2) - 1, duration: aacFrame), .drop)
        XCTAssertEqual(cut.audio(at: frame(2) + 1, duration: aacFrame), .start)
    }

    func testAStopAskedBeforeTheFirstFrameEndsTheClipAfterIt() {
        // A stop inside the attach window (before the first keyframe has come): the clip still starts, so the
        // file is never empty, and the next frame past the stop ends it.
        var cut = RecordingCut(frameInterval: interval)
        cut.videoFrom = frame(2)
        cut.audioFrom = frame(2)
        cut.stopAt = cut.frameBoundary(atOrAfter: frame(1))
        XCTAssertEqual(cut.video(at: frame(2), keyframe: true, clock: nil, gateStart: nil), .start)
        XCTAssertEqual(cut.audio(at: frame(2), duration: aacFrame), .start)
        XCTAssertEqual(cut.video(at: frame(3), keyframe: false, clock: nil, gateStart: nil), .end)
        XCTAssertEqual(cut.audio(at: frame(2) + aacFrame, duration: aacFrame), .end)
        XCTAssertEqual(cut.timing.videoFrames, 1)
    }

    func testARefusalEndsBothStreamsAndAnOutsideEndIsReportedOnce() {
        var cut = RecordingCut(frameInterval: interval)
        cut.videoFrom = 0
        cut.audioFrom = 0
        _ = cut.video(at: 0, keyframe: true, clock: nil, gateStart: nil)
        XCTAssertTrue(cut.endStream(video: false), "the audio had not ended: EOS is due")
        XCTAssertFalse(cut.endStream(video: false), "already ended")
        XCTAssertEqual(cut.audio(at: frame(1), duration: aacFrame), .drop)
        cut.refuse()
        XCTAssertTrue(cut.refused)
        XCTAssertEqual(cut.video(at: frame(1), keyframe: false, clock: nil, gateStart: nil), .drop)
        XCTAssertFalse(cut.endStream(video: true))
    }
}
