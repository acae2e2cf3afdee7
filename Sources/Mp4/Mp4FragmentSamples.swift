import Foundation

/// Turns what a fragment states (`Mp4Fragments.TrackFragment`) into whole samples, deriving what it leaves out, or
/// refuses it. Never yields a sample of size 0, nor samples that overlap or run outside the fragment's media.
///
/// mp4mux 1.22 (its `first-moov-then-finalise` mode, which earlier versions of the appliance wrote) drops a default
/// from a `tfhd` once one sample differs from it, but leaves a later one-sample run that matched the old default
/// without a value of its own: the value it meant is the old default, the first sample's of that `traf`. Such a
/// size is derived from where the sample's bytes are (the runs of a fragment are laid end to end in its `mdat`: a
/// run ends where the next begins, or where the media ends), and checked against the first sample's; a duration
/// is the first sample's, checked later against the next fragment's decode time (`Mp4FragmentSamples.reconcile`).
package enum Mp4FragmentSamples {
    /// A track's samples from one `traf`, with what was derived rather than read.
    package struct Resolved: Equatable {
        package var trackID: UInt32
        package var decodeTime: UInt64?
        package var samples: [Mp4Sample]
        /// Indices (into `samples`) of durations that were derived.
        package var derivedDurations: [Int] = []

        package init(trackID: UInt32, decodeTime: UInt64? = nil, samples: [Mp4Sample], derivedDurations: [Int] = []) {
            self.trackID = trackID
            self.decodeTime = decodeTime
            self.samples = samples
            self.derivedDurations = derivedDurations
        }
    }

    /// The samples of one fragment whose media lies in `media` (the payload of its `mdat`). Throws
    /// `Failure.unexpectedLayout` with the reason when a value cannot be derived or the samples do not fit.
    package static func resolve(_ fragments: [Mp4Fragments.TrackFragment], media: Range<Int64>) throws -> [Resolved] {
        // Every run's extent: from its offset to the next run's (in file order), or to the end of the media.
        let starts = fragments.flatMap { $0.runs.map(\.dataOffset) }.sorted()
        func extent(of run: Mp4Fragments.Run) -> Int64 {
            let next = starts.first { $0 > run.dataOffset } ?? media.upperBound
            return next - run.dataOffset
        }
        let resolved = try fragments.map { fragment in
            let first = fragment.runs.first?.entries.first
            var track = Resolved(trackID: fragment.trackID, decodeTime: fragment.decodeTime, samples: [])
            for run in fragment.runs {
                guard media.contains(run.dataOffset) || run.entries.isEmpty else {
                    throw Mp4Finishing.Failure.unexpectedLayout(
                        "track \(fragment.trackID): a run at \(run.dataOffset) outside its media \(media)")
                }
                let sizes = try sizes(of: run, extent: extent(of: run), firstSize: first?.size, track: fragment.trackID)
                var offset = run.dataOffset
                for (entry, size) in zip(run.entries, sizes) {
                    var duration = entry.duration
                    if duration == nil {
                        duration = first?.duration
                        track.derivedDurations.append(track.samples.count)
                    }
                    guard let duration else {
                        throw Mp4Finishing.Failure.unexpectedLayout(
                            "track \(fragment.trackID): a sample duration stated nowhere")
                    }
                    track.samples.append(
                        Mp4Sample(
                            offset: offset, size: size, duration: duration,
                            compositionOffset: entry.compositionOffset, isSync: entry.isSync))
                    offset += Int64(size)
                }
                guard offset <= media.upperBound else {
                    throw Mp4Finishing.Failure.unexpectedLayout(
                        "track \(fragment.trackID): samples run past the end of their media")
                }
            }
            return track
        }
        try checkNoOverlap(resolved)
        return resolved
    }

    /// No two samples of a fragment share a byte.
    private static func checkNoOverlap(_ fragments: [Resolved]) throws {
        let spans = fragments.flatMap { $0.samples.map { ($0.offset, $0.offset + Int64($0.size)) } }.sorted {
            $0.0 < $1.0
        }
        for (a, b) in zip(spans, spans.dropFirst()) where b.0 < a.1 {
            throw Mp4Finishing.Failure.unexpectedLayout("samples at \(a.0) and \(b.0) overlap")
        }
    }

    /// The sizes of a run's samples: those it states, and the missing ones from the room the run has (`extent`:
    /// up to the next run or the end of the media). One missing size takes what is left; several take the first
    /// sample's size only if that fills the room exactly.
    package static func sizes(of run: Mp4Fragments.Run, extent: Int64, firstSize: UInt32?, track: UInt32) throws
        -> [UInt32]
    {
        let known = run.entries.compactMap(\.size).reduce(Int64(0)) { $0 + Int64($1) }
        let missing = run.entries.filter { $0.size == nil }.count
        guard known <= extent else {
            throw Mp4Finishing.Failure.unexpectedLayout(
                "track \(track): a run of \(known) bytes in \(extent) bytes of room (samples overlap)")
        }
        var fill: UInt32?
        if missing == 1 {
            fill = UInt32(exactly: extent - known)
        } else if missing > 1, let firstSize, Int64(firstSize) * Int64(missing) == extent - known {
            fill = firstSize
        }
        guard missing == 0 || fill != nil else {
            throw Mp4Finishing.Failure.unexpectedLayout(
                "track \(track): \(missing) sample sizes stated nowhere in \(extent - known) bytes")
        }
        let sizes = run.entries.map { $0.size ?? fill! }
        guard !sizes.contains(0) else {
            throw Mp4Finishing.Failure.unexpectedLayout("track \(track): a sample of 0 bytes")
        }
        return sizes
    }

    /// Checks derived durations against the decode times of the track's next fragment: the durations of a fragment
    /// add up to the time its successor starts at. Where they do not and exactly one duration was derived, that
    /// one is set to make them; otherwise the derived values stay (nothing better is known).
    package static func reconcile(_ fragments: inout [Resolved]) {
        var lastByTrack: [UInt32: Int] = [:]
        for index in fragments.indices {
            let track = fragments[index].trackID
            defer { lastByTrack[track] = index }
            guard let previousIndex = lastByTrack[track], let start = fragments[previousIndex].decodeTime,
                let next = fragments[index].decodeTime, next >= start
            else { continue }
            let previous = fragments[previousIndex]
            guard previous.derivedDurations.count == 1 else { continue }
            let total = previous.samples.reduce(UInt64(0)) { $0 + UInt64($1.duration) }
            let wanted = next - start
            guard total != wanted else { continue }
            let at = previous.derivedDurations[0]
            let others = total - UInt64(previous.samples[at].duration)
            guard wanted > others, let duration = UInt32(exactly: wanted - others) else { continue }
            fragments[previousIndex].samples[at].duration = duration
        }
    }
}
