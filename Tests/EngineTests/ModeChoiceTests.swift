import Settings
import XCTest

@testable import Engine

/// The mode a V4L2 camera is asked for: pure, over mode lists shaped like real devices'.
final class ModeChoiceTests: XCTestCase {
    /// A USB webcam: YUYV only at low rates for large sizes, MJPEG for 720p30 and 1080p30.
    let webcam = CameraMode.parse(
        "video/x-raw, format=(string)YUY2, width=(int)1920, height=(int)1080, framerate=(fraction){ 5/1 }; "
            + "video/x-raw, format=(string)YUY2, width=(int)1280, height=(int)720, framerate=(fraction){ 10/1, 5/1 }; "
            + "video/x-raw, format=(string)YUY2, width=(int)640, height=(int)480, framerate=(fraction){ 30/1, 15/1 }; "
            + "video/x-raw, format=(string)YUY2, width=(int)640, height=(int)360, framerate=(fraction){ 30/1, 15/1 }; "
            + "image/jpeg, width=(int)1920, height=(int)1080, framerate=(fraction){ 30/1, 15/1 }; "
            + "image/jpeg, width=(int)1280, height=(int)720, framerate=(fraction){ 60/1, 30/1 }")
    /// vivid's webcam input: the largest size first at the lowest rate, fewer frames per second the larger.
    let vivid = CameraMode.parse(
        "video/x-raw, format=(string)YUY2, width=(int)3840, height=(int)2160, framerate=(fraction){ 2/1, 1/1 }; "
            + """
            video/x-raw, format=(string)YUY2, width=(int)1920, height=(int)1080, framerate=(fraction){ 10/1, 5/1, \
            4/1, 2/1, 1/1 }; 
            """
                + """
                video/x-raw, format=(string)YUY2, width=(int)1280, height=(int)720, framerate=(fraction){ 15/1, 25/2, \
                10/1, 5/1 }; 
                """
                + """
                video/x-raw, format=(string)YUY2, width=(int)640, height=(int)360, framerate=(fraction){ 30/1, 25/1, \
                15/1 }; 
                """
                + """
                video/x-raw, format=(string)YUY2, width=(int)320, height=(int)180, framerate=(fraction){ 60/1, 50/1, \
                40/1, 30/1 }
                """
    )

    func choose(
        _ modes: [CameraMode], _ w: Int, _ h: Int, _ fps: Double, request: ModeRequest? = nil,
        jpeg: Bool = true
    ) throws -> ModeChoice {
        try ModeChoice.choose(from: modes, width: w, height: h, fps: fps, request: request, canDecodeJPEG: jpeg)
    }

    func testExactSizeAndRateWinsAndRawComesFirst() throws {
        let c = try choose(webcam, 640, 480, 30)
        XCTAssertEqual(c.summary, "YUY2 640x480@30")
        XCTAssertEqual(c.caps, "video/x-raw,format=YUY2,width=640,height=480,framerate=30/1")
        XCTAssertTrue(c.reachesRate && c.coversSize)
        XCTAssertEqual(
            try choose(webcam, 640, 480, 15).summary, "YUY2 640x480@15", "a lower listed rate is asked for exactly")
    }

    func testMJPEGOnlyWhenNoRawModeReachesTheRate() throws {
        let c = try choose(webcam, 1280, 720, 30)
        XCTAssertEqual(c.summary, "MJPG 1280x720@30", "YUY2 720p gives only 10 fps")
        XCTAssertEqual(c.caps, "image/jpeg,width=1280,height=720,framerate=30/1")
        XCTAssertEqual(try choose(webcam, 1280, 720, 10).summary, "YUY2 1280x720@10", "raw reaches 10 fps itself")
        XCTAssertEqual(try choose(webcam, 1920, 1080, 30).summary, "MJPG 1920x1080@30")
    }

    func testWithoutAJPEGDecoderMJPEGIsNotUsable() throws {
        let c = try choose(webcam, 1280, 720, 30, jpeg: false)
        XCTAssertEqual(c.summary, "YUY2 1280x720@10")
        XCTAssertFalse(c.reachesRate)
        XCTAssertTrue(c.reason.contains("frames repeated"), c.reason)
        let mjpegOnly = CameraMode.parse("image/jpeg, width=(int)640, height=(int)480, framerate=(fraction)30/1")
        XCTAssertThrowsError(try choose(mjpegOnly, 640, 480, 30, jpeg: false)) { error in
            XCTAssertTrue("\(error)".contains("no mode the appliance can read (formats: MJPG)"), "\(error)")
        }
    }

    /// The issue's failure: vivid left to itself runs 3840x2160 at 2 fps.
    func testVividGetsTheSmallestModeReachingTheRateNotItsFirst() throws {
        XCTAssertEqual(try choose(vivid, 640, 360, 30).summary, "YUY2 640x360@30")
        let small = try choose(vivid, 320, 240, 30)
        XCTAssertEqual(
            small.summary, "YUY2 640x360@30", "320x180 is smaller than 320x240: the next size up, scaled down")
        XCTAssertTrue(small.reason.contains("smallest mode reaching"), small.reason)
        XCTAssertEqual(
            try choose(vivid, 320, 180, 10).summary, "YUY2 320x180@30", "10 is not listed: the lowest rate above it")
        XCTAssertEqual(try choose(vivid, 1280, 720, 12.5).summary, "YUY2 1280x720@12.50")
    }

    func testNoModeReachingTheRateTakesTheFastestAndSaysSo() throws {
        let c = try choose(vivid, 1280, 720, 30)
        XCTAssertEqual(c.summary, "YUY2 1280x720@15", "never 1080p at 10 or 2160p at 2 when 720p gives 15")
        XCTAssertFalse(c.reachesRate)
        XCTAssertTrue(c.coversSize)
        XCTAssertEqual(c.reason, "no mode reaches 1280x720@30: 15 fps, frames repeated to 30")
    }

    func testACameraSmallerThanTheConfiguredSizeIsScaledUp() throws {
        let c = try choose(webcam, 2560, 1440, 30)
        XCTAssertEqual(c.summary, "MJPG 1920x1080@30", "the largest mode reaching the rate")
        XCTAssertFalse(c.coversSize)
        XCTAssertTrue(c.reachesRate)
        let slow = try choose(vivid, 7680, 4320, 120)
        XCTAssertEqual(slow.summary, "YUY2 320x180@60", "neither size nor rate: the rate wins")
        XCTAssertFalse(slow.coversSize || slow.reachesRate)
    }

    func testNTSCRatesKeepTheirFraction() throws {
        let ntsc = CameraMode.parse(
            """
            video/x-raw, format=(string)NV12, width=(int)1280, height=(int)720, framerate=(fraction){ 30000/1001, \
            15000/1001 }
            """
        )
        let c = try choose(ntsc, 1280, 720, 25)
        XCTAssertEqual(c.caps, "video/x-raw,format=NV12,width=1280,height=720,framerate=30000/1001")
        XCTAssertEqual(ModeChoice.fraction(60), "60/1")
        XCTAssertEqual(ModeChoice.fraction(12.5), "12500/1000")
    }

    func testARangeOffersTheConfiguredRateExactly() throws {
        let ranged = CameraMode.parse(
            "video/x-raw, format=(string)UYVY, width=(int)1920, height=(int)1080, framerate=(fraction)[ 1/1, 60/1 ]")
        XCTAssertEqual(
            try choose(ranged, 1920, 1080, 25).caps, "video/x-raw,format=UYVY,width=1920,height=1080,framerate=25/1")
    }

    func testConfiguredModeOverridesTheChoice() throws {
        let c = try choose(webcam, 1280, 720, 30, request: ModeRequest(parsing: "1280x720@10"))
        XCTAssertEqual(c.summary, "YUY2 1280x720@10")
        XCTAssertFalse(c.reachesRate, "asked for below the configured rate")
        XCTAssertEqual(c.reason, "as configured (mode = \"1280x720@10\")")
        XCTAssertEqual(
            try choose(webcam, 640, 480, 30, request: ModeRequest(parsing: "1920x1080@30 mjpeg")).summary,
            "MJPG 1920x1080@30")
        XCTAssertEqual(
            try choose(webcam, 640, 480, 15, request: ModeRequest(parsing: "640x360")).summary, "YUY2 640x360@15",
            "no rate: the configured one")
        XCTAssertThrowsError(try choose(webcam, 640, 480, 30, request: ModeRequest(parsing: "1280x720@30 yuy2"))) {
            error in
            XCTAssertTrue("\(error)".hasPrefix("does not offer mode 1280x720@30 yuy2"), "\(error)")
            XCTAssertTrue("\(error)".contains("it offers YUY2 1920x1080@5"), "\(error)")
        }
    }

    func testModeRequestSyntax() {
        XCTAssertEqual(ModeRequest(parsing: "1280x720@30"), ModeRequest(width: 1280, height: 720, fps: 30))
        XCTAssertEqual(
            ModeRequest(parsing: "1920x1080@29.97 MJPEG"),
            ModeRequest(width: 1920, height: 1080, fps: 29.97, format: "MJPG"))
        XCTAssertEqual(ModeRequest(parsing: " 640X480  nv12 "), ModeRequest(width: 640, height: 480, format: "NV12"))
        for bad in [
            "", "1280", "1280x", "x720", "1280x720@", "1280x720@0", "1280x720@-5", "1280x720@30 mjpeg extra",
            "1280x720@30 y/u", "0x0@30", "1280*720@30", "1280x720@30@30",
        ] {
            XCTAssertNil(ModeRequest(parsing: bad), bad)
        }
        XCTAssertEqual(ModeRequest(parsing: "1920x1080@29.97 mjpeg")?.description, "1920x1080@29.97 mjpeg")
    }
}
