import Settings

/// The capture mode a V4L2 camera is asked for, and why (a pure value: the modes are passed in).
///
/// Left to itself, v4l2src fixates the first mode the driver lists, which for many cameras (and for vivid) is the
/// largest size at its lowest rate — YUY2 3840x2160 at 2 fps. So the appliance reads the camera's modes and asks
/// for one explicitly, in this order:
/// 1. the configured size at the configured rate, if offered;
/// 2. else the smallest mode at least as large that reaches the rate (scaled down);
/// 3. else, at that size or larger, the mode with the most frames (frames are repeated to the rate, and it says so);
/// 4. else (the camera is smaller than the configured size) the largest mode reaching the rate, scaled up.
/// In steps 1 and 2 raw formats come first and MJPEG only when no raw mode qualifies, so a rate is never given up
/// for a raw format while MJPEG would reach it; in step 4 size comes first (raw only breaks a tie). `[[camera]] mode`
/// replaces the choice.
public struct ModeChoice: Sendable, Equatable {
    /// The mode with `fps` set to the rate asked of the camera.
    public var mode: CameraMode
    /// Delivers at least the configured rate (else frames are repeated).
    public var reachesRate: Bool
    /// At least the configured size (else the picture is scaled up).
    public var coversSize: Bool
    /// Why this mode, for the log, `cameras` and `doctor`.
    public var reason: String

    /// "YUY2 1280x720@30"
    public var summary: String { "\(mode.format) \(mode.sizeAndRate)" }

    /// The caps that pin the camera to this mode.
    public var caps: String {
        let size = "width=\(mode.width),height=\(mode.height),framerate=\(Self.fraction(mode.fps))"
        return mode.isRaw ? "video/x-raw,format=\(mode.format),\(size)" : "image/jpeg,\(size)"
    }

    public struct Failure: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// Chooses among `modes` for `width`x`height` at `fps`; `canDecodeJPEG` says whether MJPEG modes are usable.
    public static func choose(
        from modes: [CameraMode], width: Int, height: Int, fps: Double,
        request: ModeRequest? = nil, canDecodeJPEG: Bool = true
    ) throws(Failure) -> ModeChoice {
        let usable = modes.filter { $0.isRaw || ($0.format == "MJPG" && canDecodeJPEG) }
        guard !usable.isEmpty else {
            let formats = Array(Set(modes.map(\.format))).sorted().joined(separator: ", ")
            throw Failure(
                description: "offers no mode the appliance can read (formats: \(formats.isEmpty ? "none" : formats))")
        }
        if let request { return try requested(request, from: usable, configuredFps: fps) }
        let wanted = "\(width)x\(height)@\(ModeRequest.fpsText(fps))"
        let covering = usable.filter { $0.width >= width && $0.height >= height }
        if let exact = rawFirst(covering.filter { $0.width == width && $0.height == height && $0.offers(rate: fps) })
            .first
        {
            return ModeChoice(
                mode: exact.at(fps), reachesRate: true, coversSize: true, reason: "the configured \(wanted)")
        }
        let reaching = covering.filter { $0.fps >= fps - 0.01 }
        if let larger = reaching.min(by: { isRawBefore($0, $1) ?? ($0.area < $1.area) }) {
            return ModeChoice(
                mode: larger.at(larger.rate(reaching: fps)), reachesRate: true, coversSize: true,
                reason: "smallest mode reaching \(wanted), scaled to \(width)x\(height)")
        }
        if let fastest = covering.min(by: {
            ($0.fps, -$0.area, $0.isRaw ? 1 : 0) > ($1.fps, -$1.area, $1.isRaw ? 1 : 0)
        }) {
            return ModeChoice(
                mode: fastest.at(fastest.fps), reachesRate: false, coversSize: true,
                reason:
                    """
                    no mode reaches \(wanted): \(ModeRequest.fpsText(fastest.fps)) fps, frames repeated to \
                    \(ModeRequest.fpsText(fps))
                    """
            )
        }
        let reachingSmaller = usable.filter { $0.fps >= fps - 0.01 }
        if let largest = reachingSmaller.min(by: {
            $0.area != $1.area ? $0.area > $1.area : (isRawBefore($0, $1) ?? false)
        }) {
            return ModeChoice(
                mode: largest.at(largest.rate(reaching: fps)), reachesRate: true, coversSize: false,
                reason: "no mode is \(width)x\(height) or larger: \(largest.width)x\(largest.height) scaled up")
        }
        let best = usable.min(by: { ($0.fps, $0.area) > ($1.fps, $1.area) })!
        return ModeChoice(
            mode: best.at(best.fps), reachesRate: false, coversSize: false,
            reason:
                """
                no mode is \(width)x\(height) or larger nor reaches \(ModeRequest.fpsText(fps)) fps: scaled up, \
                frames repeated
                """
        )
    }

    private static func requested(_ request: ModeRequest, from usable: [CameraMode], configuredFps: Double)
        throws(Failure) -> ModeChoice
    {
        let fps = request.fps ?? configuredFps
        let matches = usable.filter { mode in
            mode.width == request.width && mode.height == request.height
                && (request.format.map { mode.format == $0 } ?? true)
        }
        guard let mode = rawFirst(matches).first(where: { $0.offers(rate: fps) }) else {
            let offered = CameraMode.summary(usable, limit: 4)
            throw Failure(description: "does not offer mode \(request) (mode = \"\(request)\"); it offers \(offered)")
        }
        return ModeChoice(
            mode: mode.at(fps), reachesRate: fps >= configuredFps - 0.01, coversSize: true,
            reason: "as configured (mode = \"\(request)\")")
    }

    /// Raw modes first, keeping the camera's own order otherwise.
    private static func rawFirst(_ modes: [CameraMode]) -> [CameraMode] {
        modes.filter(\.isRaw) + modes.filter { !$0.isRaw }
    }

    /// True/false when exactly one of the two is raw; nil when both are or neither is.
    private static func isRawBefore(_ a: CameraMode, _ b: CameraMode) -> Bool? {
        a.isRaw == b.isRaw ? nil : a.isRaw
    }

    /// A rate as the fraction V4L2 uses: whole numbers over 1, NTSC rates (29.97, 59.94, …) over 1001.
    package static func fraction(_ fps: Double) -> String {
        if abs(fps - fps.rounded()) < 0.001 { return "\(Int(fps.rounded()))/1" }
        let ntsc = fps * 1001
        if abs(ntsc - ntsc.rounded()) < 0.05 { return "\(Int(ntsc.rounded()))/1001" }
        return "\(Int((fps * 1000).rounded()))/1000"
    }
}

extension CameraMode {
    package var area: Int { width * height }

    /// This mode with `fps` as the rate asked of the camera.
    package func at(_ rate: Double) -> CameraMode {
        var copy = self
        copy.fps = rate
        return copy
    }

    /// The rate to ask for when `fps` itself may not be offered: `fps` if it is, else the lowest offered above it
    /// (videorate drops the rest), else the highest.
    package func rate(reaching fps: Double) -> Double {
        if offers(rate: fps) { return fps }
        return rates.filter { $0 >= fps - 0.01 }.min() ?? self.fps
    }
}
