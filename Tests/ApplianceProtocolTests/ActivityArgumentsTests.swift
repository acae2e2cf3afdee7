import ApplianceProtocol
import Foundation
import XCTest

/// The activity commands' arguments, as the one parser of every front end reads them: each refusal is a bad
/// request with a reason that names the argument and what was found.
final class ActivityArgumentsTests: XCTestCase {
    func testBadArgumentsAreRefusedWithReasons() throws {
        let cases: [(String, [String: JSONValue], String)] = [
            (
                "activity", ["kind": .string("motion,cats")],
                "args.kind: unknown kind \"cats\" (known: motion, sound, manual, external, object)"
            ),
            ("activity", ["limit": .int(0)], "args.limit must be between 1 and 1000, found 0"),
            (
                "activity", ["day": .string("2026-02-30")],
                "args.day must be a day such as 2026-11-26, found \"2026-02-30\""
            ),
            (
                "activity", ["day": .string("2026-11-26"), "from": .string("2026-11-26T00:00:00Z")],
                "activity takes args.day or args.from/to, not both"
            ),
            (
                "activity", ["from": .string("2026-11-26T10:00:00Z"), "to": .string("2026-11-26T09:00:00Z")],
                "activity: args.from must be before args.to"
            ),
            (
                "activity.show", ["id": .string("12; DROP TABLE activity")],
                "args.id must be an activity number such as 12, found \"12; DROP TABLE activity\""
            ),
            ("activity.show", ["id": .int(-1)], "args.id must be an activity number such as 12"),
            ("activity.mark", ["label": .string("  ")], "args.label must not be empty"),
            (
                "activity.mark", ["label": .string(String(repeating: "x", count: 201))],
                "args.label must be one line of at most 200 characters"
            ),
            ("activity.mark", ["label": .string("a\nb")], "args.label must be one line of at most 200 characters"),
            (
                "activity.mark", ["label": .string("x"), "duration_s": .int(-3)],
                "args.duration_s must be between 0 and 86400 seconds, found -3.0"
            ),
            ("activity.protect", [:], "args.id is required"),
        ]
        for (name, args, message) in cases {
            XCTAssertThrowsError(try Command(name: name, arguments: args), "\(name) \(args)") { error in
                XCTAssertEqual((error as? ApplianceError)?.code, .badRequest)
                XCTAssertEqual((error as? ApplianceError)?.message, message)
            }
        }
        XCTAssertEqual(
            try Command(name: "activity", arguments: ["day": .string("2026-11-26")]),
            .activity(
                ActivityFilter(from: Command.localDay("2026-11-26")!.start, to: Command.localDay("2026-11-26")!.end)))
    }
}
