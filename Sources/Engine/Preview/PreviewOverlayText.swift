import ApplianceBase

/// What the preview's overlay says: nothing while idle; while recording a red ● REC mark, the elapsed time and the
/// active camera's name, as Pango markup for textoverlay. Pure, so the formatting is tested without a pipeline.
public enum PreviewOverlayText {
    /// The overlay's markup: "" while idle (`elapsedSeconds` nil), which textoverlay passes through untouched.
    public static func markup(elapsedSeconds: Int?, camera: String?) -> String {
        guard let elapsedSeconds else { return "" }
        var text = "<span foreground=\"#FF0000\">●</span> REC  \(elapsed(elapsedSeconds))"
        if let camera, !camera.isEmpty { text += "  " + escaped(camera) }
        return text
    }

    /// MM:SS under an hour, H:MM:SS from an hour on (a negative value counts as 0).
    public static func elapsed(_ seconds: Int) -> String {
        let s = max(0, seconds)
        let (h, m, r) = (s / 3600, s / 60 % 60, s % 60)
        return h > 0 ? "\(h):\(twoDigits(m)):\(twoDigits(r))" : "\(twoDigits(s / 60)):\(twoDigits(r))"
    }

    /// A name as Pango markup text: & < > " ' escaped (a camera called "A&B <rear>" must not break the markup),
    /// control characters (line breaks, tabs) shown as spaces.
    public static func escaped(_ name: String) -> String {
        var out = ""
        for scalar in name.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                if scalar.properties.generalCategory == .control {
                    out += " "
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    private static func twoDigits(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
