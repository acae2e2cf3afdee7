import ApplianceProtocol
import Foundation

/// `timeline.days`: a month's days that hold recordings or activity (the timeline page's calendar, `ctl timeline
/// --month`).
extension Clips {
    package func timelineDays(month: String) async throws -> TimelineDays {
        guard let range = Command.localMonth(month) else { throw ApplianceError(.badRequest, "not a month: \(month)") }
        var days: [(day: String, start: Date, end: Date)] = []
        var start = range.start
        while start < range.end, let end = Calendar.current.date(byAdding: .day, value: 1, to: start) {
            days.append((Command.dayText(start), start, end))
            start = end
        }
        return TimelineDays(month: month, days: try await library.dayTotals(days: days))
    }
}
