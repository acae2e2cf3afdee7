import ApplianceProtocol
import Encoders
import Settings
import XCTest

/// Admission: the channels that share an encoder with a budget (a Raspberry Pi 4's V4L2 encoder: H.264 level 4's
/// 245760 macroblocks a second) may not ask for more than it carries; the first that would is refused with one line
/// naming the budget and who took it. Encoders without a budget, and channels that store a camera's stream as sent,
/// are not limited.
final class EncoderAdmissionTests: XCTestCase {
    static let pi = EncoderCandidate(
        name: "v4l2h264", fragment: "# budget: 245760 macroblocks/s\nv4l2h264enc ! capsfilter caps=video/x-h264")
    static let software = EncoderCandidate(name: "x264", fragment: "x264enc tune=zerolatency")

    func demand(_ channel: String, _ width: Int, _ height: Int, _ fps: Int, _ encoder: EncoderCandidate?)
        -> EncoderAdmission.Demand
    {
        var video = ApplianceConfig.Video()
        (video.width, video.height, video.framerate) = (width, height, fps)
        return EncoderAdmission.Demand(channel: channel, video: video, encoder: encoder)
    }

    func testTheBudgetIsReadFromTheFragment() throws {
        XCTAssertEqual(Self.pi.budget, 245760)
        XCTAssertNil(Self.software.budget)
        XCTAssertEqual(demand("a", 1920, 1080, 30, nil).macroblocksPerSecond, 8160 * 30, "1080 rows are 68 blocks")
        let shipped = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("pipelines/encoders/v4l2h264.gst"),
            encoding: .utf8)
        XCTAssertEqual(EncoderCandidate(name: "v4l2h264", fragment: shipped).budget, 245760)
    }

    func testAPi4CarriesOne1080p30OrTwo720p30() throws {
        XCTAssertNoThrow(try EncoderAdmission.check([demand("front", 1920, 1080, 30, Self.pi)]))
        XCTAssertNoThrow(
            try EncoderAdmission.check([
                demand("front", 1280, 720, 30, Self.pi), demand("rear", 1280, 720, 30, Self.pi),
            ]))
        XCTAssertThrowsError(
            try EncoderAdmission.check([
                demand("front", 1920, 1080, 30, Self.pi), demand("rear", 1280, 720, 30, Self.pi),
            ])
        ) { error in
            XCTAssertEqual(
                "\(error)",
                """
                channel rear refused: 1280x720 at 30 fps is 108000 macroblocks a second, and v4l2h264 (v4l2h264enc) \
                carries 245760 a second, 244800 of them taken by front: lower its size or rate, or give it another \
                encoder
                """)
        }
        XCTAssertThrowsError(try EncoderAdmission.check([demand("main", 1920, 1080, 60, Self.pi)])) { error in
            XCTAssertTrue("\(error)".hasPrefix("channel main refused: 1920x1080 at 60 fps is 489600"), "\(error)")
            XCTAssertFalse("\(error)".contains("taken by"), "alone, it is over the budget by itself")
        }
    }

    func testSoftwareEncodersAndStreamsStoredAsSentAreNotLimited() throws {
        XCTAssertNoThrow(
            try EncoderAdmission.check([
                demand("front", 1920, 1080, 30, Self.pi), demand("door", 1920, 1080, 30, nil),
                demand("rear", 3840, 2160, 60, Self.software),
            ]))
    }

    /// A software encoder is judged by its trial's CPU time, scaled to each channel's size and rate: together at most
    /// 80 % of the cores. Here x264's trial took 10 ms of CPU a frame of 1280x720: 0.3 of a core at 720p30.
    func testSoftwareEncodersTogetherTakeAtMost80PercentOfTheCoresByTheirTrial() throws {
        let trial = EncoderChoice.Trial(
            name: "x264", element: "x264enc", result: .passed, detail: "", ms: 200, cpuMsPerFrame: 10)
        let cost = try XCTUnwrap(EncoderAdmission.TrialCost(trial, width: 1280, height: 720))
        XCTAssertEqual(cost.cores(for: demand("a", 1280, 720, 30, Self.software)), 0.3, accuracy: 1e-9)
        // 640x360 is 40 x 23 blocks (360 rows are 22.5: a partial block counts whole), at half the rate.
        XCTAssertEqual(
            cost.cores(for: demand("a", 640, 360, 15, Self.software)), 0.3 * 920 / 3600 / 2, accuracy: 1e-9)
        let five = (1...5).map { demand("ch\($0)", 1280, 720, 30, Self.software) }
        XCTAssertNoThrow(try EncoderAdmission.checkSoftware(five, measured: cost, cores: 2), "1.5 of 1.6 cores")
        XCTAssertThrowsError(
            try EncoderAdmission.checkSoftware(
                five + [demand("ch6", 1280, 720, 30, Self.software)], measured: cost, cores: 2)
        ) { error in
            XCTAssertEqual(
                "\(error)",
                """
                channel ch6 refused: 1280x720 at 30 fps with x264 (x264enc) takes about 0.30 of a core (its \
                trial: 10.00 ms of CPU a frame of 3600 macroblocks), which brings the software encoders to 1.80 \
                cores, more than 1.60 (80 % of this machine's 2): lower its size or rate, or store a network camera \
                as sent
                """)
        }
        // The first channel always runs; streams stored as sent, encoders with a budget or never tried are not
        // judged here; a trial that did not pass, or measured no CPU time, judges nothing.
        XCTAssertNoThrow(
            try EncoderAdmission.checkSoftware([demand("4k", 3840, 2160, 60, Self.software)], measured: cost, cores: 1))
        let other = EncoderCandidate(name: "openh264", fragment: "openh264enc")
        XCTAssertNoThrow(
            try EncoderAdmission.checkSoftware(
                five + [demand("door", 3840, 2160, 60, nil), demand("pi", 3840, 2160, 60, Self.pi)]
                    + [demand("o", 3840, 2160, 60, other)], measured: cost, cores: 2))
        var failed = trial
        failed.result = .failed
        XCTAssertNil(EncoderAdmission.TrialCost(failed, width: 1280, height: 720))
        failed.result = .passed
        for nonsense in [nil, -1, 0, .infinity, .nan, 1e9] {
            failed.cpuMsPerFrame = nonsense
            XCTAssertNil(
                EncoderAdmission.TrialCost(failed, width: 1280, height: 720), "\(String(describing: nonsense))")
        }
    }
}
