/// The picture operations of motion detection, on one small frame: blur and normalise a frame, compare it with the
/// background, clean the changed pixels and measure the regions they form. Plain loops over ~15,000 pixels.
enum ChangeMap {
    /// A 3×3 box blur (the edges average what they have): sensor noise shrinks by about three.
    static func blurred(_ frame: GrayFrame) -> [Float] {
        let (w, h) = (frame.width, frame.height)
        var out = [Float](repeating: 0, count: w * h)
        frame.pixels.withUnsafeBufferPointer { p in
            for y in 0..<h {
                for x in 0..<w {
                    var sum = 0
                    var count = 0
                    for yy in max(0, y - 1)...min(h - 1, y + 1) {
                        for xx in max(0, x - 1)...min(w - 1, x + 1) {
                            sum += Int(p[yy * w + xx])
                            count += 1
                        }
                    }
                    out[y * w + x] = Float(sum) / Float(count)
                }
            }
        }
        return out
    }

    /// Brightness and contrast taken out: the watched pixels' mean goes to 128 and their spread to 48, so a light
    /// dimming or brightening the whole scene (a gain and an offset) leaves the frame as it was. A flat frame only
    /// has its mean moved.
    package static func normalised(_ values: [Float], watched: [Bool]) -> (values: [Float], flat: Bool) {
        var sum = 0.0
        var squares = 0.0
        var n = 0.0
        for i in values.indices where watched[i] {
            sum += Double(values[i])
            squares += Double(values[i]) * Double(values[i])
            n += 1
        }
        guard n > 0 else { return (values, true) }
        let mean = sum / n
        let spread = (max(0, squares / n - mean * mean)).squareRoot()
        let flat = spread < flatSpread
        let scale = flat ? 1 : 48 / spread
        return (values.map { Float((Double($0) - mean) * scale + 128) }, flat)
    }

    /// A frame whose watched pixels spread less than this (gray levels, after the blur) shows no picture: a black
    /// filler before a camera delivers or after it fails, a covered lens. A real scene, even a dark one, has more.
    static let flatSpread = 4.0

    /// The watched pixels that differ from the background by more than `threshold`.
    package static func changed(_ frame: [Float], background: [Float], watched: [Bool], threshold: Int) -> [Bool] {
        let limit = Float(threshold)
        return frame.indices.map { watched[$0] && abs(frame[$0] - background[$0]) > limit }
    }

    /// Opening with a 3×3 cross (erode, then dilate): lines and specks one or two pixels wide (rain, noise, an edge
    /// moved by a shaking camera) go, regions at least three pixels across keep their shape.
    ///
    /// Plain loops, no array per pixel: the first version built each pixel's neighbour list, which in a debug build
    /// made a moving 160x90 picture cost long enough that two channels' detectors held both of the lab VM's
    /// cooperative threads and the control socket went unanswered.
    package static func opened(_ cells: [Bool], width w: Int, height h: Int) -> [Bool] {
        var eroded = [Bool](repeating: false, count: cells.count)
        for y in 0..<h {
            for x in 0..<w where cells[y * w + x] {
                eroded[y * w + x] =
                    x > 0 && cells[y * w + x - 1] && x < w - 1 && cells[y * w + x + 1] && y > 0
                    && cells[(y - 1) * w + x] && y < h - 1 && cells[(y + 1) * w + x]
            }
        }
        var out = eroded
        for y in 0..<h {
            for x in 0..<w where !eroded[y * w + x] {
                out[y * w + x] =
                    (x > 0 && eroded[y * w + x - 1]) || (x < w - 1 && eroded[y * w + x + 1])
                    || (y > 0 && eroded[(y - 1) * w + x]) || (y < h - 1 && eroded[(y + 1) * w + x])
            }
        }
        return out
    }

    /// The regions (4-connected) of set cells, each as the list of its indices.
    static func regions(_ cells: [Bool], width w: Int, height h: Int) -> [[Int]] {
        var seen = [Bool](repeating: false, count: cells.count)
        var regions: [[Int]] = []
        for start in cells.indices where cells[start] && !seen[start] {
            var region: [Int] = []
            var stack = [start]
            seen[start] = true
            while let i = stack.popLast() {
                region.append(i)
                let (x, y) = (i % w, i / w)
                func visit(_ ok: Bool, _ j: Int) {
                    guard ok, cells[j], !seen[j] else { return }
                    seen[j] = true
                    stack.append(j)
                }
                visit(x > 0, i - 1)
                visit(x < w - 1, i + 1)
                visit(y > 0, i - w)
                visit(y < h - 1, i + w)
            }
            regions.append(region)
        }
        return regions
    }
}
