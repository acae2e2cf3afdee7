import ApplianceProtocol
import Foundation

/// The events page: what the device noticed (motion, sound) and what it was told (presses, marks), newest first,
/// each with its picture and a link that plays the recording from the moment it began.
extension Pages {
    static let activityKinds: [(String, String)] = [
        ("", "All"), ("motion", "Motion"), ("object", "Objects"), ("sound", "Sound"),
        ("manual", "Button"), ("external", "Marks"),
    ]

    /// `query`: the filter as given (`kind`, `label`, `day`), kept in the form.
    static func activity(list: ActivityList, query: [String: String], csrf: String?) -> String {
        let kind = query["kind"] ?? ""
        let options = activityKinds.map {
            "<option value=\"\($0.0)\"\($0.0 == kind ? " selected" : "")>\($0.1)</option>"
        }.joined()
        let cards = list.items.map(activityCard).joined(separator: "\n")
        let shown = list.items.count < list.total ? " (the newest \(list.items.count))" : ""
        let body = """
            <h1>Events</h1>
            <form id="activity-filter" class="filter" method="get" action="/activity">
              <select id="kind" name="kind">\(options)</select>
              <input id="label" type="search" name="label" placeholder="person, car…"
                value="\(HTML.escape(query["label"] ?? ""))">
              <input id="day" type="date" name="day" value="\(HTML.escape(query["day"] ?? ""))">
              <button>Filter</button>
            </form>
            <p class="count"><span id="activity-total">\(list.total)</span> events\(shown)</p>
            <div id="activity"
              class="grid">\(cards.isEmpty ? "<p class=\"empty\">Nothing noticed yet.</p>" : cards)</div>
            """
        return layout(title: "Events", csrf: csrf, active: "activity", body: body)
    }

    static func activityCard(_ a: Activity) -> String {
        let picture =
            a.thumbnail != nil
            ? "<img class=\"thumb\" loading=\"lazy\" src=\"/media/activity/\(a.id)/picture\" alt=\"\">"
            : "<div class=\"thumb none\"></div>"
        var details = [HTML.duration(a.durationS.map { Int(($0 * 1000).rounded()) })]
        if !a.zones.isEmpty { details.append(a.zones.joined(separator: ", ")) }
        if let peak = a.peak { details.append(peakText(a.kind, peak)) }
        if let camera = a.camera { details.append(camera) }
        return """
            <div class="card activity \(a.kind.rawValue)" data-id="\(a.id)" data-kind="\(a.kind.rawValue)">\(picture)
            <span class="title"><span class="badge \
            kind">\(activityName(a.kind))</span>\(HTML.escape(a.label ?? ""))</span>
            <span class="meta"><time datetime="\(Timestamps.iso(a.startedAt))">\(HTML.date(a.startedAt))</time> · \
            \(HTML.escape(details.joined(separator: " · ")))</span>
            <span class="badges"><a class="play button" href="/activity/\(a.id)/play">▶ Play</a></span></div>
            """
    }

    /// An activity's peak as its kind measures it.
    static func peakText(_ kind: Activity.Kind, _ peak: Double) -> String {
        switch kind {
        case .sound: String(format: "%.0f dBFS", peak)
        case .object: String(format: "score %.2f", peak)
        default: String(format: "%.1f %% moving", peak * 100)
        }
    }

    static func activityName(_ kind: Activity.Kind) -> String {
        activityKinds.first { $0.0 == kind.rawValue }?.1 ?? kind.rawValue
    }
}
