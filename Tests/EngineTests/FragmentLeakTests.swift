import ApplianceBase
import Foundation
import GStreamerKit
import Mp4
import Settings
import SystemCalls
import XCTest

@testable import Engine

/// A leak per fragment shows only over thousands of them: a loop of recording files made by the appliance's own
/// recording bin (a new bin and muxer per file, as loop segments are), each finished by Mp4Finishing, with 0.1 s
/// fragments, measured by the bytes the process holds from malloc (glibc's mallinfo2, not RSS, which keeps freed
/// pages). Over 2,000 fragments after a warm-up of 4,000 nothing may stay behind; mp4mux 1.22's
/// `first-moov-then-finalise` mode, which the appliance wrote before, leaves 4 KiB per fragment, and the same gauge
/// sees that (the second test), so a return of that leak or a new one fails here within a minute.
final class FragmentLeakTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
            "leak-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    func testTwoThousandFragmentsLeaveNothingBehind() throws {
        let counters = FragmentCounters()
        let file = folder.appendingPathComponent("segment.mp4").path
        func segment() throws {
            try recordThroughTheBin(path: file, frames: 300, counters: counters)
            guard case .indexed = try Mp4Finishing.finish(path: file) else {
                return XCTFail("a segment was not indexed")
            }
            try FileManager.default.removeItem(atPath: file)
        }
        // Warm-up: GStreamer's and the encoders' one-time set-up, and the threads' malloc caches (glibc counts a
        // thread's cached chunks as in use: up to about 1.5 MB over the first 8,000 fragments, then flat within 0.3
        // MB; measured over 26,000).
        while counters.fragments < 4000 { try segment() }
        let before = LinuxQueries.heapInUse
        let fragmentsThen = counters.fragments
        while counters.fragments - fragmentsThen < 2000 { try segment() }
        let after = LinuxQueries.heapInUse
        let fragments = counters.fragments - fragmentsThen
        let growth = Int64(after) - Int64(before)
        print(
            """
            FragmentLeakTests: heap \(before) → \(after) bytes over \(fragments) fragments: \
            \(growth / Int64(fragments)) bytes each
            """
        )
        XCTAssertLessThan(
            growth, 1 << 20,
            "\(growth) bytes stayed behind over \(fragments) fragments (4 KiB a fragment would be 8 MB)")
    }

    /// The gauge sees the leak it is there for: plain mp4mux in `first-moov-then-finalise` mode keeps 4 KiB per
    /// fragment (the fragment buffer array of the pad that did not end the fragment is allocated again without
    /// being freed; DESIGN-NOTES). Should a GStreamer update fix it, this test says so.
    func testTheGaugeSeesMp4muxsFirstMoovLeak() throws {
        let file = folder.appendingPathComponent("first-moov.mp4").path
        func run() throws {
            let pipeline = Pipeline(name: "first-moov")
            try pipeline.add(
                try Bin.parse(
                    Self.sources(frames: 300) + """
                         vq. ! mux. aq. ! mux. mp4mux name=mux fragment-duration=100 \
                        fragment-mode=first-moov-then-finalise ! \
                        filesink location=\(Bin.quoted(file))
                        """, name: "all", label: "first-moov", ghostUnlinkedPads: false))
            try pipeline.runToEnd(timeout: ClockTime(seconds: 60))
        }
        try run()
        let before = LinuxQueries.heapInUse
        for _ in 0..<3 { try run() }
        let growth = Int64(LinuxQueries.heapInUse) - Int64(before)
        print("FragmentLeakTests: first-moov-then-finalise kept \(growth) bytes over 3 files of 100 fragments")
        XCTAssertGreaterThan(
            growth, 3 * 100 * 3 * 1024, "mp4mux 1.22's first-moov leak no longer shows: the gauge or GStreamer changed")
    }

    /// 320x180 test video with a keyframe a second (the appliance's x264 settings) and a tone, queues named vq and
    /// aq at the ends.
    static func sources(frames: Int) -> String {
        """
        videotestsrc num-buffers=\(frames) pattern=ball ! video/x-raw,width=320,height=180,framerate=30/1 ! \
        x264enc tune=zerolatency speed-preset=ultrafast bitrate=800 key-int-max=30 option-string=scenecut=0 ! \
        h264parse ! \
        queue name=vq audiotestsrc num-buffers=\(frames * 48000 / 30 / 1024 + 1) samplesperbuffer=1024 ! audioconvert \
        ! \
        audio/x-raw,rate=48000,channels=1 ! avenc_aac ! aacparse ! queue name=aq
        """
    }

    /// One file through a RecordingBin with 0.1 s fragments.
    private func recordThroughTheBin(path: String, frames: Int, counters: FragmentCounters) throws {
        let pipeline = Pipeline(name: "leak")
        let sources = try Bin.parse(
            Self.sources(frames: frames), name: "sources", label: "leak", ghostUnlinkedPads: false)
        try pipeline.add(sources)
        var config = ApplianceConfig()
        config.recording.syncIntervalS = 0.1
        let bin = try RecordingBin(name: "rec", path: path, hasAudio: true, config: config, counters: counters) {
            .init(video: 0, audio: 0)
        }
        try pipeline.add(bin.bin)
        try sources.addGhostPad(named: "video", target: try XCTUnwrap(sources.element(named: "vq")?.staticPad("src")))
            .link(bin.videoPad)
        try sources.addGhostPad(named: "audio", target: try XCTUnwrap(sources.element(named: "aq")?.staticPad("src")))
            .link(try XCTUnwrap(bin.audioPad))
        try pipeline.runToEnd(timeout: ClockTime(seconds: 60))
    }
}
