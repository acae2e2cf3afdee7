import ApplianceBase
import Engine
import XCTest

@testable import Encoders

/// The judge of an encoder's output, fed counters and times as the daemon's samples are.
final class EncoderOutputJudgeTests: XCTestCase {
    func testFramesInAndNothingOutForTheLimitIsAStop() {
        var judge = EncoderOutputJudge(stallAfter: .seconds(5))
        let t0 = ContinuousClock.now
        var counters = EncoderChain.Counters(admitted: 0, encoded: 0)
        XCTAssertNil(judge.sample(counters, at: t0))
        var verdict: String?
        for step in 1...30 {
            counters.admitted += 15  // half a second of frames, and nothing comes out
            verdict = judge.sample(counters, at: t0 + .milliseconds(500 * step))
            if verdict != nil {
                XCTAssertEqual(step, 11, "5 s after the first sample that waited")
                break
            }
        }
        XCTAssertEqual(verdict, "no output for 5.0 s while frames went in")
    }

    func testOutputOrAPauseInTheInputEndsTheWait() {
        var judge = EncoderOutputJudge(stallAfter: .seconds(5))
        let t0 = ContinuousClock.now
        var counters = EncoderChain.Counters()
        _ = judge.sample(counters, at: t0)
        for step in 1...40 {
            counters.admitted += 15
            if step % 8 == 0 { counters.encoded += 1 }  // a frame out every 4 s: slow, but not stopped
            XCTAssertNil(judge.sample(counters, at: t0 + .milliseconds(500 * step)), "step \(step)")
        }
        // The gate closes (no frames in) while the encoder holds its last frames: not a stop, however long.
        for step in 41...80 { XCTAssertNil(judge.sample(counters, at: t0 + .milliseconds(500 * step))) }
        // Frames again, nothing out: the wait starts afresh.
        var verdict: String?
        var step = 80
        while verdict == nil, step < 120 {
            step += 1
            counters.admitted += 15
            verdict = judge.sample(counters, at: t0 + .milliseconds(500 * step))
        }
        XCTAssertEqual(step, 91)
    }
}
