import Foundation
import TestSupport
import XCTest

/// What a recorded clip sounds like, read back with ffmpeg (mono, 16 kHz).
enum ClipSound {
    static let rate = 16_000

    /// The clip's sound from `start` for `duration` seconds, as samples in -1…1.
    static func samples(_ path: String, from start: Double = 0, duration: Double? = nil) throws -> [Double] {
        let span = duration.map { ["-t", "\($0)"] } ?? []
        let decoded = try ProcessOutcome.run(
            "/usr/bin/ffmpeg",
            ["-v", "error", "-ss", "\(start)"] + span + [
                "-i", path, "-map", "0:a:0", "-ac", "1",
                "-ar", "\(rate)", "-f", "s16le", "-",
            ], timeout: 60)
        XCTAssertEqual(decoded.status, 0, decoded.stderr)
        return decoded.stdoutData.withUnsafeBytes { raw in
            raw.bindMemory(to: Int16.self).map { Double(Int16(littleEndian: $0)) / 32768 }
        }
    }

    /// The pitch of a tone in `samples` by its zero crossings; nil when it is silence (RMS below -50 dBFS).
    static func pitch(_ samples: [Double]) -> Double? {
        guard !samples.isEmpty, rms(samples) > 0.003 else { return nil }
        var crossings = 0
        for index in 1..<samples.count where (samples[index - 1] < 0) != (samples[index] < 0) { crossings += 1 }
        return Double(crossings) / 2 / (Double(samples.count) / Double(rate))
    }

    /// The power of `frequency` in `samples` (Goertzel), on the same scale for any two parts of equal length.
    static func power(of frequency: Double, in samples: [Double]) -> Double {
        let coefficient = 2 * cos(2 * Double.pi * frequency / Double(rate))
        var (s1, s2) = (0.0, 0.0)
        for sample in samples {
            let s0 = sample + coefficient * s1 - s2
            (s2, s1) = (s1, s0)
        }
        return s1 * s1 + s2 * s2 - coefficient * s1 * s2
    }

    static func rms(_ samples: [Double]) -> Double {
        samples.isEmpty ? 0 : (samples.reduce(0) { $0 + $1 * $1 } / Double(samples.count)).squareRoot()
    }

    /// Times (seconds from the sound's start) where the sound turns on: a 10 ms window above -20 dBFS after at
    /// least 300 ms under -40 dBFS.
    static func onsets(_ samples: [Double]) -> [Double] {
        let window = rate / 100
        var found: [Double] = []
        var quiet = 0
        for start in stride(from: 0, to: samples.count - window, by: window) {
            let level = rms(Array(samples[start..<start + window]))
            if level > 0.1, quiet >= 30 { found.append(Double(start) / Double(rate)) }
            quiet = level < 0.01 ? quiet + 1 : 0
        }
        return found
    }

    /// Times (presentation seconds) of the frames where the picture turns white after at least 300 ms dark.
    static func flashes(_ path: String) throws -> [Double] {
        let probed = try ProcessOutcome.run(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-f", "lavfi", "-i", "movie=\(path),signalstats",
                "-show_entries", "frame=pts_time:frame_tags=lavfi.signalstats.YAVG",
                "-of", "csv=p=0",
            ], timeout: 60)
        XCTAssertEqual(probed.status, 0, probed.stderr)
        var found: [Double] = []
        var darkSince: Double?
        for line in probed.stdout.split(separator: "\n") {
            let fields = line.split(separator: ",").compactMap { Double($0) }
            guard fields.count == 2 else { continue }
            let (time, luma) = (fields[0], fields[1])
            if luma > 128, let since = darkSince, time - since >= 0.3 { found.append(time) }
            if luma < 64 { darkSince = darkSince ?? time } else { darkSince = nil }
        }
        return found
    }

    /// Where the clip's sound starts, in presentation seconds.
    static func soundStart(_ path: String) throws -> Double {
        let probed = try ProcessOutcome.run(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=start_time",
                "-of", "csv=p=0", path,
            ], timeout: 30)
        return Double(probed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }
}
