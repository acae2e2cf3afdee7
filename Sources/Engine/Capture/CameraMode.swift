import ApplianceBase
import Foundation
import Settings

/// A capture mode a camera offers, read from its caps.
public struct CameraMode: Equatable, Sendable {
    /// YUY2, NV12, MJPG, H264, …
    public var format: String
    public var width: Int
    public var height: Int
    /// The highest frame rate offered at this size and format.
    public var fps: Double
    /// Every rate offered at this size and format (a camera lists them, e.g. `{ 30/1, 15/1 }`), highest first;
    /// for a range (`[ 1/1, 60/1 ]`) its two ends with `rateIsRange` set.
    public var rates: [Double] = []
    public var rateIsRange = false

    public init(format: String, width: Int, height: Int, fps: Double, rates: [Double]? = nil, rateIsRange: Bool = false)
    {
        (self.format, self.width, self.height, self.fps) = (format, width, height, fps)
        self.rates = rates ?? [fps]
        self.rateIsRange = rateIsRange
    }

    /// Whether `rate` can be asked of the camera exactly (listed, or inside the range).
    public func offers(rate: Double) -> Bool {
        if rateIsRange, let low = rates.min(), let high = rates.max() {
            return rate >= low - 0.01 && rate <= high + 0.01
        }
        return rates.contains { abs($0 - rate) < 0.01 }
    }

    /// Whether frames arrive as raw pixels (anything but compressed formats), which need no decoder.
    public var isRaw: Bool { !["MJPG", "H264", "H265", "bayer"].contains(format) && !format.contains("/") }

    /// "1280x720@30"
    public var sizeAndRate: String { "\(width)x\(height)@\(ModeRequest.fpsText(fps))" }

    /// Reads the modes out of a caps string as GStreamer's device monitor gives it, e.g.
    /// `video/x-raw, format=(string)YUY2, width=(int)640, height=(int)480, framerate=(fraction){ 30/1, 15/1 };
    /// image/jpeg, …`.
    /// Ranges and lists count by their largest value; structures without a size are skipped.
    public static func parse(_ caps: String) -> [CameraMode] {
        var modes: [CameraMode] = []
        for structure in split(caps, on: ";") {
            let fields = split(structure, on: ",")
            guard let mediaType = fields.first?.split(separator: "(").first.map(String.init) else { continue }
            var values: [String: String] = [:]
            for field in fields.dropFirst() {
                guard let equals = field.firstIndex(of: "=") else { continue }
                values[String(field[..<equals])] = String(field[field.index(after: equals)...])
            }
            guard let width = largestInt(values["width"]), let height = largestInt(values["height"]) else { continue }
            let rates = values["framerate"].map(fractions) ?? []
            let isRange = values["framerate"]?.contains("[") ?? false
            for format in formats(mediaType: mediaType, value: values["format"]) {
                modes.append(
                    CameraMode(
                        format: format, width: width, height: height, fps: rates.max() ?? 0,
                        rates: rates.isEmpty ? [0] : rates.sorted(by: >), rateIsRange: isRange))
            }
        }
        return modes
    }

    /// "MJPG 1920x1080@30, 1280x720@30 (+5 more); YUY2 640x480@30": formats in the order the camera lists them,
    /// sizes largest first, at most `limit` each.
    package static func summary(_ modes: [CameraMode], limit: Int = 3) -> String {
        var order: [String] = []
        var best: [String: [String: CameraMode]] = [:]
        for mode in modes {
            if best[mode.format] == nil {
                order.append(mode.format)
                best[mode.format] = [:]
            }
            let size = "\(mode.width)x\(mode.height)"
            if (best[mode.format]?[size]?.fps ?? -1) < mode.fps { best[mode.format]?[size] = mode }
        }
        return order.map { format in
            let sizes = best[format]!.values.sorted { ($0.width * $0.height, $0.fps) > ($1.width * $1.height, $1.fps) }
            var text =
                "\(format) "
                + sizes.prefix(limit).map { "\($0.width)x\($0.height)@\(ModeRequest.fpsText($0.fps))" }.joined(
                    separator: ", ")
            if sizes.count > limit { text += " (+\(sizes.count - limit) more)" }
            return text
        }.joined(separator: "; ")
    }

    /// The highest frame rate offered at `width`x`height` or larger (nil: no such mode).
    package static func bestFps(_ modes: [CameraMode], width: Int, height: Int) -> Double? {
        modes.filter { $0.width >= width && $0.height >= height }.map(\.fps).max()
    }

    private static func formats(mediaType: String, value: String?) -> [String] {
        switch mediaType.trimmingCharacters(in: .whitespaces) {
        case "image/jpeg": return ["MJPG"]
        case "video/x-h264": return ["H264"]
        case "video/x-h265": return ["H265"]
        case "video/x-raw", "video/x-bayer":
            let names = (value ?? "").replacingOccurrences(of: "(string)", with: "")
                .trimmingCharacters(in: CharacterSet(charactersIn: "{}[] "))
                .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            return names.isEmpty ? [mediaType == "video/x-bayer" ? "bayer" : "raw"] : names
        default: return [mediaType]
        }
    }

    private static func largestInt(_ value: String?) -> Int? {
        guard let value else { return nil }
        let numbers = value.replacingOccurrences(of: "(int)", with: "")
            .split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        return numbers.max()
    }

    /// Every positive fraction in a caps value (`30/1`, `{ 30/1, 15/1 }`, `[ 1/1, 60/1 ]`).
    private static func fractions(_ value: String) -> [Double] {
        var found: [Double] = []
        let text = value.replacingOccurrences(of: "(fraction)", with: "")
        for part in text.split(whereSeparator: { !$0.isNumber && $0 != "/" }) {
            let pieces = part.split(separator: "/")
            guard pieces.count == 2, let n = Double(pieces[0]), let d = Double(pieces[1]), d > 0, n > 0 else {
                continue
            }
            found.append(n / d)
        }
        return found
    }

    /// Splits on `separator` outside of {…}, […] and (…).
    private static func split(_ text: String, on separator: Character) -> [String] {
        var parts: [String] = []
        var current = ""
        var depth = 0
        for character in text {
            switch character {
            case "{", "[", "(": depth += 1
            case "}", "]", ")": depth = max(0, depth - 1)
            default: break
            }
            if character == separator, depth == 0 {
                parts.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current.append(character)
            }
        }
        let last = current.trimmingCharacters(in: .whitespaces)
        if !last.isEmpty { parts.append(last) }
        return parts.filter { !$0.isEmpty }
    }
}
