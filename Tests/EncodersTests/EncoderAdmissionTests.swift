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
}
