import Foundation
import XCTest

@testable import Mp4

/// Working out what a fragment leaves unstated: sizes from where the bytes are, durations from the first sample and
/// the next fragment's decode time; anything that cannot be worked out is refused, never guessed.
final class FragmentSamplesTests: XCTestCase {
    typealias Entry = Mp4Fragments.Entry
    typealias Run = Mp4Fragments.Run
    typealias TrackFragment = Mp4Fragments.TrackFragment

    private func entry(_ size: UInt32?, _ duration: UInt32? = 1024, sync: Bool = true) -> Entry {
        Entry(size: size, duration: duration, flags: sync ? 0 : Mp4Fragments.nonSyncFlag)
    }

    /// The case found in a recovered clip: an audio traf whose tfhd lost its default size, and a later one-sample
    /// run (data offset only) between two video runs. Its size is the room up to the next run.
    func testAOneSampleRunWithoutASizeTakesTheRoomUpToTheNextRun() throws {
        let video1 = Run(dataOffset: 1000, entries: [entry(500, 3000, sync: true), entry(200, 3000, sync: false)])
        let audio1 = Run(dataOffset: 1700, entries: [entry(300), entry(310)])
        let video2 = Run(dataOffset: 2310, entries: [entry(250, 3000, sync: false)])
        let audio2 = Run(dataOffset: 2560, entries: [entry(nil)])
        let video3 = Run(dataOffset: 2860, entries: [entry(140, 3000, sync: false)])
        let resolved = try Mp4FragmentSamples.resolve(
            [
                TrackFragment(trackID: 1, decodeTime: 0, runs: [video1, video2, video3]),
                TrackFragment(trackID: 2, decodeTime: 0, runs: [audio1, audio2]),
            ], media: 1000..<3000)
        XCTAssertEqual(resolved[1].samples.map(\.size), [300, 310, 300])
        XCTAssertEqual(resolved[1].samples.map(\.offset), [1700, 2000, 2560])
        XCTAssertEqual(resolved[0].samples.map(\.offset), [1000, 1500, 2310, 2860])
    }

    /// The last run of the media: its room ends where the media ends.
    func testTheLastRunEndsAtTheEndOfTheMedia() throws {
        let resolved = try Mp4FragmentSamples.resolve(
            [
                TrackFragment(
                    trackID: 2, decodeTime: 0, runs: [Run(dataOffset: 100, entries: [entry(40), entry(nil)])])
            ], media: 100..<170)
        XCTAssertEqual(resolved[0].samples.map(\.size), [40, 30])
    }

    /// Several sizes missing: the first sample's size, only if it fills the room exactly.
    func testSeveralMissingSizesTakeTheFirstSamplesSizeOnlyIfItFits() throws {
        let fits = try Mp4FragmentSamples.resolve(
            [
                TrackFragment(
                    trackID: 2, decodeTime: 0,
                    runs: [
                        Run(dataOffset: 0, entries: [entry(10)]),
                        Run(dataOffset: 10, entries: [entry(nil), entry(nil)]),
                    ])
            ], media: 0..<30)
        XCTAssertEqual(fits[0].samples.map(\.size), [10, 10, 10])
        XCTAssertThrowsError(
            try Mp4FragmentSamples.resolve(
                [
                    TrackFragment(
                        trackID: 2, decodeTime: 0,
                        runs: [
                            Run(dataOffset: 0, entries: [entry(10)]),
                            Run(dataOffset: 10, entries: [entry(nil), entry(nil)]),
                        ])
                ], media: 0..<31)
        ) { XCTAssertTrue("\($0)".contains("stated nowhere"), "\($0)") }
    }

    func testNoSampleOfZeroBytesAndNoOverlap() {
        // The next run starts where this one's stated samples end: no room for the one without a size.
        XCTAssertThrowsError(
            try Mp4FragmentSamples.resolve(
                [
                    TrackFragment(
                        trackID: 2, decodeTime: 0, runs: [Run(dataOffset: 0, entries: [entry(10), entry(nil)])]),
                    TrackFragment(trackID: 1, decodeTime: 0, runs: [Run(dataOffset: 10, entries: [entry(5)])]),
                ], media: 0..<15)
        ) { XCTAssertTrue("\($0)".contains("0 bytes"), "\($0)") }
        // Two runs at the same place.
        XCTAssertThrowsError(
            try Mp4FragmentSamples.resolve(
                [
                    TrackFragment(trackID: 2, decodeTime: 0, runs: [Run(dataOffset: 0, entries: [entry(5)])]),
                    TrackFragment(trackID: 1, decodeTime: 0, runs: [Run(dataOffset: 0, entries: [entry(5)])]),
                ], media: 0..<15)
        ) { XCTAssertTrue("\($0)".contains("overlap"), "\($0)") }
        // Stated sizes that run into the next run.
        XCTAssertThrowsError(
            try Mp4FragmentSamples.resolve(
                [
                    TrackFragment(trackID: 2, decodeTime: 0, runs: [Run(dataOffset: 0, entries: [entry(12)])]),
                    TrackFragment(trackID: 1, decodeTime: 0, runs: [Run(dataOffset: 10, entries: [entry(5)])]),
                ], media: 0..<15)
        ) { XCTAssertTrue("\($0)".contains("overlap"), "\($0)") }
        // Samples past the end of their mdat.
        XCTAssertThrowsError(
            try Mp4FragmentSamples.resolve(
                [
                    TrackFragment(trackID: 1, decodeTime: 0, runs: [Run(dataOffset: 0, entries: [entry(20)])])
                ], media: 0..<15))
        // A run outside the media.
        XCTAssertThrowsError(
            try Mp4FragmentSamples.resolve(
                [
                    TrackFragment(trackID: 1, decodeTime: 0, runs: [Run(dataOffset: 40, entries: [entry(5)])])
                ], media: 0..<15))
    }

    /// A missing duration is the traf's first sample's (the tfhd default mp4mux dropped), not the previous one's.
    func testAMissingDurationIsTheFirstSamples() throws {
        let resolved = try Mp4FragmentSamples.resolve(
            [
                TrackFragment(
                    trackID: 2, decodeTime: 0,
                    runs: [
                        Run(dataOffset: 0, entries: [entry(10, 1024), entry(10, 1025)]),
                        Run(dataOffset: 30, entries: [entry(10, nil)]),
                    ]),
                TrackFragment(trackID: 1, decodeTime: 0, runs: [Run(dataOffset: 20, entries: [entry(10, 3000)])]),
            ], media: 0..<40)
        XCTAssertEqual(resolved[0].samples.map(\.duration), [1024, 1025, 1024])
        XCTAssertEqual(resolved[0].derivedDurations, [2])
    }

    /// The next fragment's decode time settles a derived duration that does not add up; with no derived duration,
    /// or several, the durations stay as read.
    func testTheNextDecodeTimeSettlesADerivedDuration() {
        func fragment(_ time: UInt64, _ durations: [UInt32], derived: [Int]) -> Mp4FragmentSamples.Resolved {
            .init(
                trackID: 2, decodeTime: time,
                samples: durations.map { Mp4Sample(offset: 0, size: 1, duration: $0, isSync: true) },
                derivedDurations: derived)
        }
        var fragments = [
            fragment(0, [1024, 1024, 1024], derived: [1]), fragment(3000, [1024], derived: []),
            fragment(4024, [1024, 1024], derived: [0, 1]), fragment(6000, [1024], derived: []),
        ]
        Mp4FragmentSamples.reconcile(&fragments)
        XCTAssertEqual(fragments[0].samples.map(\.duration), [1024, 952, 1024])
        XCTAssertEqual(fragments[2].samples.map(\.duration), [1024, 1024], "two derived: nothing to choose between")
    }
}
