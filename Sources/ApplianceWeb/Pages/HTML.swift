import ApplianceBase
import Foundation
import HTTPTypes
import Hummingbird

/// Server-rendered pages: plain HTML with every piece of text escaped, no build step, usable without script
/// (the script adds live updates and the buttons' actions).
enum HTML {
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    static func response(_ page: String, status: HTTPResponse.Status = .ok, headers extra: HTTPFields = [:]) -> Response
    {
        var headers = extra
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        // Only our own script, style and media; no framing by other sites.
        headers[.contentSecurityPolicy] =
            """
            default-src 'self'; img-src 'self' data:; media-src 'self'; style-src 'self'; script-src 'self'; \
            frame-ancestors 'none'
            """
        headers[.xContentTypeOptions] = "nosniff"
        headers[.referrerPolicy] = "same-origin"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
    }

    /// `1234567` ms → `20:34`, `3723000` → `1:02:03`.
    static func duration(_ ms: Int?) -> String {
        guard let ms else { return "–" }
        let seconds = ms / 1000
        let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60)
        return h > 0 ? String(format: "%d:%02d:%02d", h, m, s) : String(format: "%d:%02d", m, s)
    }

    static func size(_ bytes: Int64?) -> String {
        guard let bytes else { return "–" }
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: value < 10 ? "%.1f %@" : "%.0f %@", value, units[unit])
    }

    /// `2026-11-23 14:03` in UTC (the script shows it in the browser's own time zone).
    static func date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date) + " UTC"
    }
}
