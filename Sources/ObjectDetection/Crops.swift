import MotionAndSound

/// Where a detector looks: the picture around each motion region, not the whole frame (Frigate's way: a CPU detector
/// costs tens of milliseconds per crop). Each region (a box in fractions of the picture) grows by `padding` of its
/// size on every side and to at least the detector's window, stays inside the frame, and crops that overlap are
/// merged into one, so an object split across two regions is seen whole.
public struct Crop: Sendable, Equatable {
    public var x: Int, y: Int, width: Int, height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }

    func overlaps(_ other: Crop) -> Bool {
        x < other.x + other.width && other.x < x + width && y < other.y + other.height && other.y < y + height
    }

    func union(_ other: Crop) -> Crop {
        let left = min(x, other.x)
        let top = min(y, other.y)
        return Crop(
            x: left, y: top, width: max(x + width, other.x + other.width) - left,
            height: max(y + height, other.y + other.height) - top)
    }
}

public enum Crops {
    /// A region of the picture, as fractions of its width and height (0…1): a motion region's bounds.
    public typealias Region = MotionBox

    public static func plan(
        _ regions: [Region], frameWidth: Int, frameHeight: Int, padding: Double = 0.25,
        minWidth: Int = 64, minHeight: Int = 128
    ) -> [Crop] {
        var crops = regions.compactMap {
            crop(
                $0, frameWidth: frameWidth, frameHeight: frameHeight, padding: padding, minWidth: minWidth,
                minHeight: minHeight)
        }
        var merged = true
        while merged {  // merge until no two overlap (a union can reach a third crop)
            merged = false
            outer: for i in crops.indices {
                for j in crops.indices where j > i && crops[i].overlaps(crops[j]) {
                    crops[i] = crops[i].union(crops[j])
                    crops.remove(at: j)
                    merged = true
                    break outer
                }
            }
        }
        return crops.sorted { ($0.y, $0.x) < ($1.y, $1.x) }
    }

    private static func crop(
        _ r: Region, frameWidth: Int, frameHeight: Int, padding: Double, minWidth: Int, minHeight: Int
    ) -> Crop? {
        guard frameWidth > 0, frameHeight > 0, [r.x, r.y, r.width, r.height].allSatisfy(\.isFinite), r.width > 0,
            r.height > 0
        else { return nil }
        let fw = Double(frameWidth)
        let fh = Double(frameHeight)
        let w = min(fw, max(Double(minWidth), r.width * fw * (1 + 2 * padding)))
        let h = min(fh, max(Double(minHeight), r.height * fh * (1 + 2 * padding)))
        let cx = (r.x + r.width / 2) * fw
        let cy = (r.y + r.height / 2) * fh
        let left = min(max(0, cx - w / 2), fw - w)
        let top = min(max(0, cy - h / 2), fh - h)
        return Crop(
            x: Int(left.rounded(.down)), y: Int(top.rounded(.down)), width: Int(w.rounded()), height: Int(h.rounded()))
    }
}
