import Foundation

/// What part of a day the timeline page shows: the whole day, an hour, or ten minutes of an hour (`?hour=12` and
/// `?hour=12&minute=20`), with the step of its tick marks and what a tick links to.
struct TimelineZoom: Equatable, Sendable {
    var hour: Int?
    /// The first of the ten minutes shown; only with `hour`.
    var minute: Int?

    /// The zoom a page's query asks for, or the reason it cannot be shown.
    static func parse(hour: String?, minute: String?) -> Result<TimelineZoom, WebError> {
        let (hourText, minuteText) = (hour.flatMap { $0.isEmpty ? nil : $0 }, minute.flatMap { $0.isEmpty ? nil : $0 })
        guard let hourText else {
            return minuteText == nil ? .success(TimelineZoom()) : .failure(WebError(.badRequest, "minute needs hour"))
        }
        guard let h = Int(hourText), (0..<24).contains(h) else {
            return .failure(WebError(.badRequest, "hour must be 0 to 23, found \"\(hourText.prefix(40))\""))
        }
        guard let minuteText else { return .success(TimelineZoom(hour: h)) }
        guard let m = Int(minuteText), (0..<60).contains(m) else {
            return .failure(WebError(.badRequest, "minute must be 0 to 59, found \"\(minuteText.prefix(40))\""))
        }
        return .success(TimelineZoom(hour: h, minute: min(m, 50)))
    }

    /// The times shown on the day that starts at `dayStart` (local midnight).
    func range(dayStart: Date, dayEnd: Date) -> (Date, Date) {
        guard let hour, let start = Calendar.current.date(byAdding: .hour, value: hour, to: dayStart) else {
            return (dayStart, dayEnd)
        }
        guard let minute else { return (start, start.addingTimeInterval(3600)) }
        let from = start.addingTimeInterval(Double(minute) * 60)
        return (from, from.addingTimeInterval(600))
    }

    /// "12:00–13:00", "12:20–12:30"; nil for the whole day.
    var label: String? {
        guard let hour else { return nil }
        guard let minute else { return String(format: "%02d:00–%02d:00", hour, hour + 1) }
        let end = minute + 10
        return String(format: "%02d:%02d–%02d:%02d", hour, minute, end == 60 ? hour + 1 : hour, end % 60)
    }

    /// Seconds between tick marks: 3 hours for a day, 10 minutes for an hour, a minute for ten minutes.
    var tickStep: TimeInterval { hour == nil ? 3 * 3600 : minute == nil ? 600 : 60 }

    /// Where a tick at `at` leads: the hour it starts (from the day), its ten minutes (from an hour), nowhere.
    func tickLink(day: String, at: Date) -> String? {
        let c = Calendar.current.dateComponents([.hour, .minute], from: at)
        switch (hour, minute) {
        case (nil, _): return "/timeline?day=\(day)&hour=\(c.hour ?? 0)"
        case (let h?, nil): return "/timeline?day=\(day)&hour=\(h)&minute=\(c.minute ?? 0)"
        default: return nil
        }
    }
}
