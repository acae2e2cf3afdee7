import ApplianceProtocol
import Foundation

/// The timeline page's month calendar: every day of the shown day's month as a link to its timeline, marked when it
/// holds recordings (`recorded`) or events (`events`), the shown day `selected`; the months before and after one
/// click away. Weeks start on Monday.
extension Pages {
    static func calendar(_ month: TimelineDays, selected day: String) -> String {
        guard let range = Command.localMonth(month.month) else { return "" }
        let byDay = Dictionary(month.days.map { ($0.day, $0) }, uniquingKeysWith: { first, _ in first })
        let calendar = Calendar.current
        // Monday = 0 … Sunday = 6.
        let leading = (calendar.component(.weekday, from: range.start) + 5) % 7
        var cells = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map { "<span class=\"weekday\">\($0)</span>" }
        cells += Array(repeating: "<span class=\"blank\"></span>", count: leading)
        var at = range.start
        while at < range.end {
            let text = Command.dayText(at)
            let totals = byDay[text]
            var classes = ["cal-day"]
            if (totals?.recordings ?? 0) > 0 { classes.append("recorded") }
            if (totals?.events ?? 0) > 0 { classes.append("events") }
            if text == day { classes.append("selected") }
            let title = totals.map { "\(duration($0.recordedS)) recorded · \($0.events) events" } ?? "nothing recorded"
            cells.append(
                """
                <a class=\"\(classes.joined(separator: " "))\" data-day=\"\(text)\" href=\"/timeline?day=\(text)\"
                  title=\"\(title)\">
                """
                    + "\(calendar.component(.day, from: at))</a>")
            guard let next = calendar.date(byAdding: .day, value: 1, to: at) else { break }
            at = next
        }
        let recordedDays = month.days.filter { $0.recordings > 0 }.count
        let name = monthName(range.start)
        let previous = calendar.date(byAdding: .month, value: -1, to: range.start).map(Command.dayText) ?? day
        let following = calendar.date(byAdding: .month, value: 1, to: range.start).map(Command.dayText) ?? day
        return """
            <details id="calendar" class="calendar">
              <summary>Calendar · \(name): \(recordedDays) day\(recordedDays == 1 ? "" : "s") with recordings</summary>
              <div class="month-nav"><a id="previous-month" href="/timeline?day=\(previous)">‹ Earlier</a> \
            <b>\(name)</b> <a id="next-month" href="/timeline?day=\(following)">Later ›</a></div>
              <div class="month-grid">\(cells.joined())</div>
            </details>
            """
    }

    /// "November 2026".
    static func monthName(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "LLLL yyyy"
        return formatter.string(from: date)
    }
}
