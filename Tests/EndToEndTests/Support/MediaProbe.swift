import Foundation
import TestSupport
import XCTest

/// What ffprobe and ffmpeg say about a media file: the independent check of what the appliance wrote.
struct MediaProbe {
    struct Stream {
        var type: String
        var codec: String
        var duration: Double
        var startTime: Double
        var frames: Int
        var width: Int?
        var height: Int?
    }

    let path: String
    let streams: [Stream]

    init(_ path: String) throws {
        self.path = path
        let result = try ProcessOutcome.run(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-show_entries",
                "stream=codec_type,codec_name,duration,start_time,nb_frames,width,height", "-of", "json", path,
            ])
        guard result.status == 0, let json = result.json, let list = json["streams"] as? [[String: Any]] else {
            throw DaemonError(message: "ffprobe failed on \(path): \(result.stderr)")
        }
        streams = list.map { s in
            Stream(
                type: s["codec_type"] as? String ?? "", codec: s["codec_name"] as? String ?? "",
                duration: Double(s["duration"] as? String ?? "") ?? 0,
                startTime: Double(s["start_time"] as? String ?? "") ?? 0,
                frames: Int(s["nb_frames"] as? String ?? "") ?? 0, width: s["width"] as? Int,
                height: s["height"] as? Int)
        }
    }

    var video: Stream? { streams.first { $0.type == "video" } }
    var audio: Stream? { streams.first { $0.type == "audio" } }

    /// Video packet timestamps in file order (no B-frames: decode order is presentation order).
    func videoPTS() throws -> [Double] {
        let result = try ProcessOutcome.run(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-select_streams", "v:0",
                "-show_entries", "packet=pts_time", "-of", "csv=p=0", path,
            ])
        return result.stdout.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// The presentation times of the video's keyframes, in file order.
    func keyframeTimes() throws -> [Double] {
        let result = try ProcessOutcome.run(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-select_streams", "v:0",
                "-show_entries", "packet=pts_time,flags", "-of", "csv=p=0", path,
            ])
        return result.stdout.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",")
            guard fields.count >= 2, fields[1].hasPrefix("K") else { return nil }
            return Double(fields[0].trimmingCharacters(in: .whitespaces))
        }
    }

    /// An MD5 of each video packet's bytes, in file order, with whether it is a keyframe.
    func videoPacketHashes() throws -> [(hash: String, keyframe: Bool)] {
        let result = try ProcessOutcome.run(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_data_hash", "MD5",
                "-show_entries", "packet=flags,data_hash", "-of", "csv=p=0", path,
            ])
        return result.stdout.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",").map(String.init)
            guard let hash = fields.first(where: { $0.hasPrefix("MD5:") }),
                let flags = fields.first(where: { !$0.hasPrefix("MD5:") })
            else { return nil }
            return (hash, flags.hasPrefix("K"))
        }
    }

    /// What `ffmpeg -v error -i F -f null -` prints: empty for a clean file. The pictures keep the file's own time
    /// base (`-enc_time_base:v -1`): by default ffmpeg re-times them to 1/frame rate, where two frames less than half
    /// an interval apart (a network camera's arrival jitter, kept as sent) land on one tick and it reports "non
    /// monotonically increasing dts" of a file whose decoding times all increase (CI, 2026-11-30: "270 >= 270").
    func decodeErrors() throws -> String {
        let result = try ProcessOutcome.run(
            "/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-enc_time_base:v", "-1", "-f", "null", "-"])
        return result.stderr + (result.status == 0 ? "" : "exit \(result.status)")
    }

    /// Where a stream's decode times first fail to increase, with the packets around it (`stream dts duration
    /// flags`), or "" when none does: what a failure message shows when ffmpeg says "non monotonically increasing
    /// dts", to tell the track and the place from one CI run.
    func firstDecodeOrderFault() throws -> String {
        let result = try ProcessOutcome.run(
            "/usr/bin/ffprobe",
            ["-v", "error", "-show_entries", "packet=stream_index,dts,duration,flags", "-of", "csv=p=0", path])
        let packets = result.stdout.split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
        var last: [String: Int] = [:]
        for (n, packet) in packets.enumerated() where packet.count >= 2 {
            guard let dts = Int(packet[1]) else { continue }
            defer { last[packet[0]] = dts }
            guard let before = last[packet[0]], dts <= before else { continue }
            let around = packets[max(0, n - 4)...min(packets.count - 1, n + 2)].map { $0.joined(separator: " ") }
            let kinds = streams.enumerated().map { "\($0.offset)=\($0.element.type)" }.joined(separator: ",")
            return "packet \(n) (streams \(kinds)): \(around.joined(separator: " | "))"
        }
        return ""
    }

    /// The largest step between consecutive video timestamps, in seconds, and where it starts (the recording's own
    /// clock: a stall of the output is a hole there).
    func largestVideoGap() throws -> (seconds: Double, at: Double) {
        let pts = try videoPTS()
        return zip(pts, pts.dropFirst()).map { ($1 - $0, $0) }.max { $0.0 < $1.0 } ?? (0, 0)
    }

    /// Checks timing like the recording-engine issue asks: increasing PTS, no gap over 1.5 frame intervals.
    func assertSmoothVideo(framerate: Double, file: StaticString = #filePath, line: UInt = #line) throws {
        let pts = try videoPTS()
        XCTAssertGreaterThan(pts.count, 1, file: file, line: line)
        var largestGap = 0.0
        for (a, b) in zip(pts, pts.dropFirst()) {
            XCTAssertGreaterThan(b, a, "PTS not strictly increasing at \(a) → \(b)", file: file, line: line)
            largestGap = max(largestGap, b - a)
        }
        XCTAssertLessThanOrEqual(
            largestGap, 1.5 / framerate + 0.0005, "largest frame gap \(largestGap) s", file: file, line: line)
    }
}

/// Width and height from a JPEG's SOF marker, after checking it is a JPEG ffprobe can decode.
func jpegSize(_ path: String) throws -> (width: Int, height: Int) {
    let probe = try MediaProbe(path)
    guard let video = probe.video, video.codec == "mjpeg", let w = video.width, let h = video.height else {
        throw DaemonError(message: "\(path) is not a decodable JPEG")
    }
    return (w, h)
}
