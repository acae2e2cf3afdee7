import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// `ctl timeline` against a daemon: two clips recorded a few seconds apart are two spans with a gap between them,
/// a mark is an event, `--json` decodes as the typed timeline, `--month` counts today's clips and mark, and bad days,
/// months and ranges exit 1 with one line.
final class TimelineCtlTests: XCTestCase {
    func testClipsAreSpansWithTheGapBetweenThemAndBadRangesAreRefused() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { _ = daemon.stop() }
        var clips: [RecordingResult] = []
        for n in 0..<2 {
            _ = try daemon.recordStart(title: "part \(n)")
            XCTAssertTrue(try daemon.waitFor(20) { (try daemon.status().recording?.elapsedMs ?? 0) >= 1500 })
            clips.append(try daemon.recordStop())
            if n == 0 { Thread.sleep(forTimeInterval: 3) }  // the subject: a 3 s gap between the two clips
        }
        let marked = try daemon.ctl(["activity", "mark", "doorbell"])
        XCTAssertEqual(marked.status, 0, marked.stderr)

        let json = try daemon.ctl(["timeline", "--json"])
        XCTAssertEqual(json.status, 0, json.stderr)
        let t = try WireFormat.decoder.decode(Timeline.self, from: Data(json.stdout.utf8))
        XCTAssertEqual(t.spans.map(\.firstId), clips.map(\.id), "one span per clip")
        XCTAssertEqual(t.recordedS, Double(clips.reduce(0) { $0 + $1.durationMs }) / 1000, accuracy: 0.2)
        let between = t.gaps.filter { $0.start >= t.spans[0].end && $0.end <= t.spans[1].start }
        XCTAssertEqual(between.count, 1, "the gap between the clips: \(t.gaps)")
        XCTAssertGreaterThan(between.first.map { $0.end.timeIntervalSince($0.start) } ?? 0, 2)
        XCTAssertEqual(t.events.map(\.label), ["doorbell"])

        let text = try daemon.ctl(["timeline"])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertEqual(text.stdout.components(separatedBy: "\nSPAN ").count - 1, 2, text.stdout)
        XCTAssertTrue(
            text.stdout.contains("\nGAP ") && text.stdout.contains("external") && text.stdout.contains("\"doorbell\""),
            text.stdout)

        let month = String(Command.dayText(Date()).prefix(7))
        let days = try daemon.ctl(["timeline", "--json", "--month", month])
        XCTAssertEqual(days.status, 0, days.stderr)
        let today = try WireFormat.decoder.decode(TimelineDays.self, from: Data(days.stdout.utf8)).days.last
        XCTAssertEqual(today?.day, Command.dayText(Date()))
        XCTAssertEqual(today?.recordings, 2, "the two clips")
        XCTAssertEqual(today?.events, 1, "the mark")
        let calendar = try daemon.ctl(["timeline", "--month", month])
        XCTAssertTrue(
            calendar.stdout.contains("\(Command.dayText(Date()))  ") && calendar.stdout.contains("in 2 recording(s)"),
            calendar.stdout)

        for (arguments, reason) in [
            (["timeline", "--day", "2026-13-01"], "args.day must be a day"),
            (["timeline", "--month", "2026-13"], "args.month must be a month"),
            (["timeline", "--month", "2026-11", "--day", "2026-11-02"], "cannot go with --day"),
            (["timeline", "--from", "2026-11-26 00:00"], "needs args.day, or args.from and args.to"),
            (["timeline", "--from", "2026-11-01 00:00", "--to", "2026-11-26 00:00"], "at most 7 days"),
            (["timeline", "--from", "noon", "--to", "2026-11-26 00:00"], "is not a date and time"),
        ] {
            let refused = try daemon.ctl(arguments)
            XCTAssertEqual(refused.status, 1, "\(arguments)")
            XCTAssertTrue(refused.stderr.contains(reason), "\(arguments): \(refused.stderr)")
            XCTAssertEqual(
                refused.stderr.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n").count, 1,
                "one line")
        }
    }
}
