import Foundation

/// The tracks a `moov` describes: what each one carries and its timescale, by track ID.
package enum Mp4Tracks {
    package enum Kind: Sendable { case video, audio, other }

    package struct Track: Equatable, Sendable {
        package var kind: Kind
        package var timescale: UInt64

        package init(kind: Kind, timescale: UInt64) {
            self.kind = kind
            self.timescale = timescale
        }
    }

    /// `children`: the `moov`'s child boxes.
    package static func read(moov: Data, children: [Mp4Box]) -> [UInt32: Track] {
        var result: [UInt32: Track] = [:]
        for trak in children where trak.type == "trak" {
            guard let tkhd = try? Mp4Box.child("tkhd", of: trak, in: moov),
                let mdia = try? Mp4Box.child("mdia", of: trak, in: moov),
                let mdhd = try? Mp4Box.child("mdhd", of: mdia, in: moov),
                let hdlr = try? Mp4Box.child("hdlr", of: mdia, in: moov), hdlr.payload.count >= 12,
                let id = try? tkhd.field(in: moov, v0: 12, v1: 20),
                let scale = try? mdhd.field(in: moov, v0: 12, v1: 20)
            else { continue }
            let timescale = UInt64(scale)
            let kind: Kind =
                switch moov.fourCC(at: hdlr.payload.lowerBound + 8) {
                case "vide": .video
                case "soun": .audio
                default: .other
                }
            result[id] = Track(kind: kind, timescale: timescale)
        }
        return result
    }
}
