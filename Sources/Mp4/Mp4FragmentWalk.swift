import ApplianceBase
import Foundation

/// Goes through the fragments after a fragmented file's first index, in file order, and keeps each whole one: a
/// `moof` together with the `mdat` that holds its media, every sample worked out (Mp4FragmentSamples). The walk ends
/// at the first fragment that is not whole (the file ends inside it: a crash) or whose samples cannot be worked out
/// (refused, with the reason: dropping it is better than indexing it wrongly), and at an index a finish appended.
enum Mp4FragmentWalk {
    package struct Result {
        package var fragments: [Mp4FragmentSamples.Resolved] = []
        /// Where the last whole fragment ends: what follows is not indexed.
        package var end: Int64
        package var refused: String?
        /// DASH layout (each `moof` before its `mdat`, no media before the first index), as the appliance writes;
        /// false for mp4mux's `first-moov-then-finalise` layout (media first, its `moof` after it).
        var indexBeforeMedia: Bool
    }

    package static func run(
        _ file: Mp4File, top: Mp4File.TopLevel, after initial: Mp4Box,
        defaults: [UInt32: Mp4Fragments.TrackDefaults]
    ) throws -> Result {
        let boxes = top.boxes.filter { $0.offset > initial.offset }
        let indexBeforeMedia = !top.boxes.contains { $0.type == "mdat" && $0.offset < initial.offset }
        var result = Result(end: Int64(initial.end), indexBeforeMedia: indexBeforeMedia)
        for (i, box) in boxes.enumerated() {
            if box.type == "moov" { break }  // an index a finish began: rebuilt
            guard box.type == "moof" else { continue }
            let mediaBox = indexBeforeMedia ? boxes.dropFirst(i + 1).first : (i > 0 ? boxes[i - 1] : nil)
            guard let mediaBox, mediaBox.type == "mdat" else { break }  // its media is not (all) in the file
            let media = Int64(mediaBox.payload.lowerBound)..<Int64(mediaBox.end)
            do {
                let stated = try Mp4Fragments.trackFragments(
                    moof: try file.read(box), moofOffset: Int64(box.offset), defaults: defaults,
                    mediaBytes: media.upperBound - media.lowerBound)
                result.fragments += try Mp4FragmentSamples.resolve(stated, media: media)
            } catch {
                result.refused = "the fragment at byte \(box.offset): \(error)"
                break
            }
            result.end = Int64(max(box.end, mediaBox.end))
        }
        Mp4FragmentSamples.reconcile(&result.fragments)
        return result
    }
}
