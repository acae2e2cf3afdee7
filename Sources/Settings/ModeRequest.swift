/// `[[camera]] mode = "1280x720@30"` (optionally `"1280x720@30 mjpeg"` or a raw format such as `"… yuy2"`): the
/// capture mode a V4L2 camera must use, instead of the one the appliance would choose. Without `@rate` the
/// configured `[video] framerate` is asked for.
public struct ModeRequest: Sendable, Equatable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public var fps: Double?
    /// `MJPG` or a raw format name as GStreamer spells it (`YUY2`, `NV12`, …); nil: any the camera offers.
    public var format: String?

    public init(width: Int, height: Int, fps: Double? = nil, format: String? = nil) {
        (self.width, self.height, self.fps, self.format) = (width, height, fps, format)
    }

    /// Parses `WIDTHxHEIGHT[@FPS][ FORMAT]`; nil for anything else.
    public init?(parsing text: String) {
        let words = text.split(separator: " ", omittingEmptySubsequences: true)
        guard (1...2).contains(words.count) else { return nil }
        let sizeAndRate = words[0].split(separator: "@", omittingEmptySubsequences: false)
        guard (1...2).contains(sizeAndRate.count) else { return nil }
        let size = sizeAndRate[0].lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard size.count == 2, let width = Int(size[0]), let height = Int(size[1]),
            (16...16384).contains(width), (16...16384).contains(height)
        else { return nil }
        var fps: Double?
        if sizeAndRate.count == 2 {
            guard let rate = Double(sizeAndRate[1]), rate > 0, rate <= 1000 else { return nil }
            fps = rate
        }
        var format: String?
        if words.count == 2 {
            let name = words[1].uppercased()
            guard name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { return nil }
            format = ["MJPEG", "MJPG", "JPEG"].contains(name) ? "MJPG" : name
        }
        self.init(width: width, height: height, fps: fps, format: format)
    }

    /// A frame rate as a mode names it: `30`, `29.97`.
    public static func fpsText(_ fps: Double) -> String {
        fps == fps.rounded() ? "\(Int(fps))" : String(format: "%.2f", fps)
    }

    public var description: String {
        "\(width)x\(height)" + (fps.map { "@" + Self.fpsText($0) } ?? "")
            + (format.map { " " + ($0 == "MJPG" ? "mjpeg" : $0.lowercased()) } ?? "")
    }
}
