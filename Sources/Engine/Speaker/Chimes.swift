import ApplianceProtocol
import Foundation

/// The device's own sounds, made at start as short WAV files (48 kHz, mono, 16-bit): a few sine notes each, with
/// a soft attack and release so they do not click. Nothing is downloaded or shipped as audio.
package enum Chimes {
    package static let rate = 48_000

    /// A note: a frequency (0: a rest) for a duration.
    package struct Note: Sendable, Equatable {
        package var hz: Double
        package var ms: Int
        package init(_ hz: Double, _ ms: Int) { (self.hz, self.ms) = (hz, ms) }
    }

    /// Each chime's notes: rising for a start, falling for a stop, three quick beeps for a protected clip, two low
    /// ones for storage, a falling minor third held longer for an error, and a ding-dong.
    package static func notes(_ chime: SpeakerChime) -> [Note] {
        switch chime {
        case .recordingStarted: [Note(659, 120), Note(0, 30), Note(880, 160)]
        case .recordingStopped: [Note(880, 120), Note(0, 30), Note(659, 160)]
        case .protected: [Note(988, 80), Note(0, 60), Note(988, 80), Note(0, 60), Note(988, 80)]
        case .storageLow: [Note(440, 250), Note(0, 120), Note(440, 250)]
        case .error: [Note(330, 300), Note(0, 40), Note(262, 450)]
        case .chime: [Note(784, 350), Note(659, 550)]
        }
    }

    /// The chime's samples, -1…1, at half scale.
    package static func samples(_ notes: [Note]) -> [Double] {
        notes.flatMap { note -> [Double] in
            let count = rate * note.ms / 1000
            guard note.hz > 0 else { return Array(repeating: 0, count: count) }
            let edge = Double(rate) * 0.008  // 8 ms in and out
            return (0..<count).map { i in
                let envelope = min(1, Double(i) / edge, Double(count - i) / edge)
                return 0.5 * envelope * sin(2 * .pi * note.hz * Double(i) / Double(rate))
            }
        }
    }

    /// A WAV file (RIFF, PCM 16-bit mono) of `samples`.
    package static func wav(_ samples: [Double]) -> Data {
        var data = Data()
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
        }
        let bytes = UInt32(samples.count * 2)
        data.append(contentsOf: Array("RIFF".utf8))
        append(36 + bytes)
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        append(UInt32(16))
        append(UInt16(1))
        append(UInt16(1))
        append(UInt32(rate))
        append(UInt32(rate * 2))
        append(UInt16(2))
        append(UInt16(16))
        data.append(contentsOf: Array("data".utf8))
        append(bytes)
        for sample in samples { append(Int16((max(-1, min(1, sample)) * 32767).rounded())) }
        return data
    }

    /// Writes every chime to `folder` (made if missing): `folder/<name>.wav`. Returns the paths by chime.
    package static func write(to folder: String) throws -> [SpeakerChime: String] {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return try SpeakerChime.allCases.reduce(into: [:]) { paths, chime in
            let path = "\(folder)/\(chime.rawValue).wav"
            try wav(samples(notes(chime))).write(to: URL(fileURLWithPath: path), options: .atomic)
            paths[chime] = path
        }
    }
}
