import XCTest

@testable import ObjectDetection

/// The object detectors of all channels may promise at most half the machine's cores together; the first is always
/// admitted, and a detector without a budget counts as the whole core its thread can take.
final class DetectorAdmissionTests: XCTestCase {
    func testDetectorsTogetherTakeAtMostHalfTheCores() throws {
        let quarter = (1...4).map { (channel: "ch\($0)", budget: 0.25) }
        XCTAssertNoThrow(try DetectorAdmission.check(quarter, cores: 2), "four quarters are half of two cores")
        XCTAssertThrowsError(try DetectorAdmission.check(quarter + [("ch5", 0.25)], cores: 2)) { error in
            XCTAssertEqual(
                "\(error)",
                """
                channel ch5 refused: its object detector (cpu_budget 0.25 of a core) would bring the detectors of 5 \
                channels to 1.25 cores, more than 1 (half of this machine's 2): lower [objects] cpu_budget, or \
                record fewer channels with detection
                """)
        }
        XCTAssertNoThrow(try DetectorAdmission.check(quarter + [("ch5", 0.25)], cores: 4))
    }

    func testTheFirstIsAlwaysAdmittedAndNoBudgetIsAWholeCore() throws {
        XCTAssertNoThrow(try DetectorAdmission.check([("main", 0)], cores: 1), "one channel runs as it always did")
        XCTAssertEqual(DetectorAdmission.demand(budget: 0), 1)
        XCTAssertThrowsError(try DetectorAdmission.check([("a", 0.25), ("b", 0)], cores: 2)) { error in
            XCTAssertTrue("\(error)".hasPrefix("channel b refused: its object detector (no cpu_budget (a whole core))"))
        }
        XCTAssertNoThrow(try DetectorAdmission.check([("a", 0.25), ("b", 0)], cores: 4))
    }
}
