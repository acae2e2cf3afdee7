import ApplianceProtocol
import Foundation
import XCTest

/// `timeline` and `timeline.days` arguments: a bad range is refused with a reason before anything is read.
final class TimelineArgumentsTests: XCTestCase {
    func testBadRangesAreRefusedWithAReason() throws {
        for (args, reason) in [
            ([:], "needs args.month"), (["month": "2026-13"], "args.month must be a month"),
            (["month": "November"], "args.month must be a month"), (["month": "2026-11", "day": "2026-11-02"], "day"),
        ]
            as [([String: JSONValue], String)]
        {
            XCTAssertThrowsError(try Command(name: "timeline.days", arguments: args), "\(args)") { error in
                XCTAssertTrue((error as? ApplianceError)?.message.contains(reason) == true, "\(args): \(error)")
            }
        }
        let cases: [([String: JSONValue], String)] = [
            ([:], "needs args.day"),
            (["day": "yesterday"], "args.day must be a day"),
            (["day": "2026-02-30"], "args.day must be a day"),
            (["day": "2026-11-26", "from": "2026-11-26T00:00:00Z"], "not both"),
            (["from": "2026-11-26T00:00:00Z"], "needs args.day"),
            (["from": "2026-11-26T00:00:00Z", "to": "2026-11-25T00:00:00Z"], "before"),
            (["from": "2026-11-01T00:00:00Z", "to": "2026-11-26T00:00:00Z"], "at most 7 days"),
            (["day": "2026-11-26", "camera": "front"], "camera"),
        ]
        for (args, reason) in cases {
            XCTAssertThrowsError(try Command(name: "timeline", arguments: args), "\(args)") { error in
                let failure = error as? ApplianceError
                XCTAssertEqual(failure?.code, .badRequest, "\(args)")
                XCTAssertTrue(failure?.message.contains(reason) == true, "\(args): \(failure?.message ?? "")")
            }
        }
        let day = try Command(name: "timeline", arguments: ["day": "2026-11-26"])
        guard case .timeline(let from, let to, let channel) = day else { return XCTFail("\(day)") }
        XCTAssertEqual(
            to.timeIntervalSince(from), 86_400, accuracy: 3600, "a local day (23 or 25 h across a DST change)")
        XCTAssertNil(channel, "every channel")
        let rear = try Command(name: "timeline", arguments: ["day": "2026-11-26", "channel": "rear"])
        guard case .timeline(_, _, "rear") = rear else { return XCTFail("\(rear)") }
        XCTAssertThrowsError(try Command(name: "timeline", arguments: ["day": "2026-11-26", "channel": ""]))
    }
}
