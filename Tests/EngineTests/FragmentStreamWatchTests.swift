import Foundation
import Mp4
import XCTest

@testable import Engine

/// The watch on the recording's filesink: where fragments end, which of those ends get a sync (at most one per
/// interval), and the start offset written into the later track's decode times. Fed a DASH-layout byte stream
/// built here, box by box, cut into buffers in every way mp4mux might (and some it does not).
final class FragmentStreamWatchTests: XCTestCase {
    private let second: UInt64 = 1_000_000_000

    // MARK: a byte stream as mp4mux's DASH mode writes it

    /// `trak` with its ID, handler and media timescale (only what the watch reads).
    private func trak(id: UInt32, handler: String, timescale: UInt32) -> Data {
        var tkhd = Data(count: 12)
        tkhd.put(bigEndian: id, at: 8)
        var mdhd = Data(count: 20)
        mdhd.put(bigEndian: timescale, at: 8)
        var hdlr = Data(count: 20)
        hdlr.replaceSubrange(4..<8, with: Array(handler.utf8))
        return mp4Box(
            "trak", mp4FullBox("tkhd", tkhd) + mp4Box("mdia", mp4FullBox("mdhd", mdhd) + mp4FullBox("hdlr", hdlr)))
    }

    private var header: Data {
        mp4Box("ftyp", Data("isom".utf8) + Data(count: 4))
            + mp4Box(
                "moov",
                mp4FullBox("mvhd", Data(count: 96)) + trak(id: 1, handler: "vide", timescale: 30000)
                    + trak(id: 2, handler: "soun", timescale: 48000))
    }

    /// A moof with one traf: one sample of `duration` (track timescale) from `decodeTime`.
    private func moof(track: UInt32, decodeTime: UInt64, duration: UInt32 = 0, wide: Bool = false) -> Data {
        var tfhd = Data()
        tfhd.append(bigEndian: track)
        var tfdt = Data()
        if wide { tfdt.append(bigEndian: decodeTime) } else { tfdt.append(bigEndian: UInt32(decodeTime)) }
        var trun = Data()
        trun.append(bigEndian: UInt32(1))
        trun.append(bigEndian: duration)
        return mp4Box(
            "moof",
            mp4FullBox("mfhd", Data(count: 4))
                + mp4Box(
                    "traf",
                    mp4FullBox("tfhd", tfhd) + mp4FullBox("tfdt", version: wide ? 1 : 0, tfdt)
                        + mp4FullBox("trun", flags: 0x100, trun)))
    }

    private func fragment(track: UInt32, decodeTime: UInt64, duration: UInt32 = 0, media: Int) -> [Data] {
        [
            moof(track: track, decodeTime: decodeTime, duration: duration),
            mp4Box("mdat", Data(repeating: 7, count: media)),
        ]
    }

    /// Feeds `buffers` one by one; returns each buffer's action and the bytes as written.
    private func feed(
        _ watch: inout FragmentStreamWatch, _ buffers: [Data],
        starts: FragmentStreamWatch.Starts = .init(video: 0, audio: 0)
    ) -> ([FragmentStreamWatch.Action], Data) {
        var actions: [FragmentStreamWatch.Action] = []
        var written = Data()
        for buffer in buffers {
            let action = watch.next(size: buffer.count, starts: starts) { offset, count in
                Array(buffer[(buffer.startIndex + offset)..<(buffer.startIndex + min(buffer.count, offset + count))])
            }
            var patched = buffer
            for patch in action.patches {
                patched.replaceSubrange(
                    (patched.startIndex + patch.offset)..<(patched.startIndex + patch.offset + patch.bytes.count),
                    with: patch.bytes)
            }
            written.append(patched)
            actions.append(action)
        }
        return (actions, written)
    }

    // MARK: tests

    /// The first fragment is synced (it makes the file's start durable too); the audio fragment that ends 20 ms
    /// before the next second is not due yet.
    func testTheBufferThatCompletesAFragmentIsSynced() {
        var watch = FragmentStreamWatch(syncInterval: second)
        let buffers =
            [header] + fragment(track: 1, decodeTime: 0, duration: 30000, media: 100)
            + fragment(track: 2, decodeTime: 0, duration: 47040, media: 50)
        let (actions, _) = feed(&watch, buffers)
        XCTAssertEqual(actions.map(\.syncAfter), [false, false, true, false, false])
        XCTAssertEqual(watch.fragments, 2)
        XCTAssertEqual(
            watch.tracks, [1: .init(kind: .video, timescale: 30000), 2: .init(kind: .audio, timescale: 48000)])
    }

    /// A keyframe storm: a fragment every 100 ms of media, a sync once a second of it (the first fragment, then
    /// those ending at 1, 2 and 3 s).
    func testSyncsComeOncePerIntervalOfMedia() {
        var watch = FragmentStreamWatch(syncInterval: second)
        var buffers = [header]
        for i in 0..<30 { buffers += fragment(track: 1, decodeTime: UInt64(i) * 3000, duration: 3000, media: 10) }
        let (actions, _) = feed(&watch, buffers)
        XCTAssertEqual(watch.fragments, 30)
        XCTAssertEqual(watch.syncs, 4)
        let synced = actions.indices.filter { actions[$0].syncAfter }.map { $0 / 2 }  // buffer → fragment number
        XCTAssertEqual(synced, [1, 10, 20, 30])
    }

    /// Video and audio fragments of each second end a few ms apart, in either order: one sync a second, whichever
    /// comes first within the slack, never none for a second.
    func testTracksEndingTogetherGetOneSyncPerInterval() {
        var watch = FragmentStreamWatch(syncInterval: second)
        var buffers = [header]
        for i in 0..<10 {
            // ends 0.98 s, 1.96 s…
            buffers += fragment(track: 2, decodeTime: UInt64(i) * 47_040, duration: 47_040, media: 10)
            buffers += fragment(track: 1, decodeTime: UInt64(i) * 30000, duration: 30000, media: 10)  // ends 1 s, 2 s…
        }
        _ = feed(&watch, buffers)
        XCTAssertEqual(watch.fragments, 20)
        XCTAssertEqual(watch.syncs, 10)
    }

    /// Media that arrives sample by sample, a moof split from its traf, headers split across buffers: the same
    /// fragments are found, and the sync comes with the buffer holding the fragment's last byte.
    func testBoxesSplitAcrossBuffersAreFollowed() {
        let firstEnd = (header + fragment(track: 1, decodeTime: 0, media: 100).reduce(Data(), +)).count
        let whole =
            header + fragment(track: 1, decodeTime: 0, media: 100).reduce(Data(), +)
            + fragment(track: 2, decodeTime: 0, media: 30).reduce(Data(), +)
        for size in [1, 3, 7, 8, 15, 16, 17, 64, 200, 1000] {
            var watch = FragmentStreamWatch(syncInterval: 0)  // every fragment due
            let buffers = stride(from: 0, to: whole.count, by: size).map { whole[$0..<min(whole.count, $0 + size)] }
            let (actions, written) = feed(&watch, buffers.map { Data($0) })
            XCTAssertEqual(watch.fragments, 2, "buffers of \(size) bytes")
            XCTAssertEqual(written, whole, "nothing patched: both tracks start at 0")
            let syncedEnds = actions.indices.filter { actions[$0].syncAfter }.map { min(whole.count, ($0 + 1) * size) }
            // One sync per buffer that completes a fragment: both may end in the same buffer.
            XCTAssertEqual(
                syncedEnds.count, Set([(firstEnd - 1) / size, (whole.count - 1) / size]).count,
                "buffers of \(size) bytes")
            XCTAssertEqual(syncedEnds.last, whole.count, "buffers of \(size) bytes")
        }
    }

    /// Audio that starts 4 ms after the video: every audio fragment's decode time moves by 4 ms (192 units at
    /// 48 kHz), the video's stay; a moof split across buffers cannot be patched and is counted.
    func testTheLaterTrackStartsWhereItStarted() throws {
        var watch = FragmentStreamWatch(syncInterval: second)
        let starts = FragmentStreamWatch.Starts(video: 10 * second, audio: 10 * second + 4_000_000)
        let buffers =
            [header] + fragment(track: 2, decodeTime: 1, media: 20) + fragment(track: 1, decodeTime: 1, media: 20)
            + fragment(track: 2, decodeTime: 48001, media: 20)
        let (_, written) = feed(&watch, buffers, starts: starts)
        let decodeTimes = try tfdts(in: written)
        XCTAssertEqual(decodeTimes.map(\.track), [2, 1, 2])
        XCTAssertEqual(decodeTimes.map(\.time), [193, 1, 48193])
        XCTAssertEqual(watch.unpatched, 0)

        var split = FragmentStreamWatch(syncInterval: second)
        let audio = moof(track: 2, decodeTime: 1)
        _ = feed(&split, [header, audio.prefix(20), audio.dropFirst(20)].map { Data($0) }, starts: starts)
        XCTAssertEqual(split.unpatched, 1)
    }

    /// The origin is fixed at the first moof: video alone known then counts as the earlier; the audio, started
    /// later, is moved by its lateness. A 64-bit decode time is patched as such.
    func testTheOriginIsTheEarliestStartKnownAtTheFirstMoof() throws {
        var watch = FragmentStreamWatch(syncInterval: second)
        var written = Data()
        for (buffer, starts) in [
            (header, FragmentStreamWatch.Starts(video: 5 * second)),
            (moof(track: 1, decodeTime: 0), .init(video: 5 * second)),
            (mp4Box("mdat", Data(count: 4)), .init(video: 5 * second)),
            (moof(track: 2, decodeTime: 1 << 33, wide: true), .init(video: 5 * second, audio: 5 * second + 10_000_000)),
        ] {
            written += feed(&watch, [buffer], starts: starts).1
        }
        XCTAssertEqual(watch.origin, 5 * second)
        XCTAssertEqual(try tfdts(in: written).map(\.time), [0, (1 << 33) + 480])
    }

    /// A 32-bit decode time that the offset would overflow is left alone and counted.
    func testAnOverflowingDecodeTimeIsLeftAlone() throws {
        var watch = FragmentStreamWatch(syncInterval: second)
        let (_, written) = feed(
            &watch, [header, moof(track: 2, decodeTime: UInt64(UInt32.max) - 10)],
            starts: .init(video: 0, audio: second))
        XCTAssertEqual(try tfdts(in: written).map(\.time), [UInt64(UInt32.max) - 10])
        XCTAssertEqual(watch.unpatched, 1)
    }

    private func tfdts(in data: Data) throws -> [(track: UInt32, time: UInt64)] {
        try Mp4Box.children(of: data, in: 0..<data.count).filter { $0.type == "moof" }.map { moof in
            let fragments = try Mp4Fragments.trackFragments(
                moof: Data(data[moof.offset..<moof.end]), moofOffset: Int64(moof.offset), defaults: [:])
            return (fragments[0].trackID, try XCTUnwrap(fragments[0].decodeTime))
        }
    }
}
