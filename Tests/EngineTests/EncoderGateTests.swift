import ApplianceBase
import XCTest

@testable import Engine

/// The encoder gate's rules: closed while nothing records or streams; a recording admits frames from its planned
/// start; live viewers hold it open for every frame, and a recording that starts then knows the encoder was running.
final class EncoderGateTests: XCTestCase {
    let interval: UInt64 = 33_333_333

    func testClosedUntilARecordingOpensItFromItsPlannedStart() {
        let gate = EncoderGate(frameInterval: interval)
        XCTAssertFalse(gate.isOpen)
        XCTAssertFalse(gate.admit(runningTime: 1_000_000_000))
        let (start, wasFlowing) = gate.open(earliest: 1_050_000_000)
        XCTAssertFalse(wasFlowing, "nothing was encoding")
        XCTAssertEqual(start, 1_000_000_000 + 2 * interval, "the first grid time at or after the request")
        XCTAssertFalse(gate.admit(runningTime: 1_000_000_000 + interval), "before the planned start")
        XCTAssertTrue(gate.admit(runningTime: start))
        XCTAssertEqual(gate.firstRunningTime, start)
        gate.close()
        XCTAssertFalse(gate.isOpen)
        XCTAssertFalse(gate.admit(runningTime: start + interval))
    }

    func testLiveViewersHoldItOpenAndARecordingStartingThenIsToldTheEncoderRuns() {
        let gate = EncoderGate(frameInterval: interval)
        gate.holdForStreaming()
        XCTAssertTrue(gate.isOpen, "audio is encoded for the viewers too")
        XCTAssertTrue(gate.admit(runningTime: 1_000_000_000), "every frame passes for the viewers")
        XCTAssertNil(gate.firstRunningTime, "no recording yet")

        let (start, wasFlowing) = gate.open(earliest: 1_050_000_000)
        XCTAssertTrue(wasFlowing, "the encoder is mid-GOP: the recording asks for a keyframe at its start")
        XCTAssertTrue(gate.admit(runningTime: 1_000_000_000 + interval), "still passes for the viewers")
        XCTAssertNil(gate.firstRunningTime, "but it is not the recording's first frame")
        XCTAssertTrue(gate.admit(runningTime: start))
        XCTAssertEqual(gate.firstRunningTime, start)

        // The recording ends: the viewers keep the frames coming; when they leave, the gate closes.
        gate.close()
        XCTAssertTrue(gate.admit(runningTime: start + interval))
        gate.releaseForStreaming()
        XCTAssertFalse(gate.isOpen)
        XCTAssertFalse(gate.admit(runningTime: start + 2 * interval))
    }

    func testTwoMediaHoldItUntilBothAreGoneAndExtraReleasesDoNothing() {
        let gate = EncoderGate(frameInterval: interval)
        gate.holdForStreaming()
        gate.holdForStreaming()
        gate.releaseForStreaming()
        XCTAssertTrue(gate.isOpen)
        gate.releaseForStreaming()
        gate.releaseForStreaming()
        XCTAssertFalse(gate.isOpen)
        gate.holdForStreaming()
        XCTAssertTrue(gate.isOpen, "a release too many did not leave a debt")
    }

    func testPreRecordKeepsItOpenWhateverViewersDo() {
        let gate = EncoderGate(frameInterval: interval)
        gate.openPermanently()
        gate.holdForStreaming()
        gate.releaseForStreaming()
        gate.close()
        XCTAssertTrue(gate.isOpen)
        XCTAssertTrue(gate.open(earliest: 5).wasFlowing)
    }
}
