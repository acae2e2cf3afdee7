import ApplianceBase
import Foundation

/// The times and durations ONVIF messages carry: `xs:dateTime` in UTC with `Z` (clients compare them with their own
/// clock and want the zone), and `xs:duration` (`PT600S`, `PT1M`) or an absolute time for a subscription's end.
package enum ONVIFTime {
    package static func string(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }

    /// `2026-07-01T12:00:00Z`, `…+00:00`, with or without fractional seconds.
    package static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }

    /// An `xs:duration` in seconds: `PnDTnHnMnS` (fractions allowed on seconds); years and months are refused (their
    /// length depends on the calendar and no client sends them).
    package static func seconds(_ text: String) -> Double? {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        guard rest.hasPrefix("P") else { return nil }
        rest = rest.dropFirst()
        var total = 0.0
        var number = ""
        var inTime = false
        var any = false
        for character in rest {
            switch character {
            case "0"..."9", ".": number.append(character)
            case "T":
                guard !inTime, number.isEmpty else { return nil }
                inTime = true
            case "D", "H", "M", "S":
                guard let value = Double(number), inTime || character == "D", character != "D" || !inTime else {
                    return nil
                }
                total += value * ["D": 86400, "H": 3600, "M": 60, "S": 1][character]!
                number = ""
                any = true
            default: return nil
            }
        }
        return any && number.isEmpty ? total : nil
    }

    /// A requested end of a subscription: a duration from now, or an absolute time.
    package static func termination(_ text: String, now: Date) -> Date? {
        if let seconds = seconds(text) { return now.addingTimeInterval(seconds) }
        return date(text)
    }

    /// `PT60S`-style duration for replies.
    package static func duration(_ seconds: Int) -> String { "PT\(seconds)S" }
}
