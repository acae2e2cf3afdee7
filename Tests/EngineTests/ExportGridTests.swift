import XCTest

@testable import Engine

/// The export's re-timing: after a part placed 16 ms early (what splitmuxsrc did after a segment whose audio ended
/// one AAC frame early), every later buffer goes back onto the stream's own grid.
final class ExportGridTests: XCTestCase {
    func testBuffersAfterAnEarlyPartMoveBackOntoTheGrid() {
        let grid = ExportGrid()
        let frame: UInt64 = 21_333_333
        var corrections: [Int64?] = []
        var time: UInt64 = 18_000_000
        for index in 0..<6 {
            if index == 3 { time -= 16_000_000 }  // the join: the next part came 16 ms early
            corrections.append(grid.correction(decodeTime: time, duration: frame))
            time += frame
        }
        XCTAssertEqual(corrections, [0, 0, 0, 16_000_000, 16_000_000, 16_000_000])
        XCTAssertNil(grid.correction(decodeTime: UInt64.max, duration: frame), "unknown timing is left alone")
        XCTAssertNil(grid.correction(decodeTime: 1, duration: UInt64.max))
    }
}
