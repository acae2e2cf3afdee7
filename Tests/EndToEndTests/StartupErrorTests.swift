import ApplianceProtocol
import Foundation
import Mp4
import TestSupport
import XCTest

/// A bad config, device, fragment or data dir stops `appliance run` at once with a one-line reason.
final class StartupErrorTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "appliance-start-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs the daemon with `config` and expects it to fail; returns its last stderr line.
    private func failure(_ config: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let path = directory.appendingPathComponent("bad.toml").path
        try config.write(toFile: path, atomically: true, encoding: .utf8)
        return try failure(
            arguments: ["run", "--config", path, "--socket", directory.path + "/ctl.sock"], file: file, line: line)
    }

    private func failure(arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try ProcessOutcome.run(DaemonProcess.binary, arguments, timeout: 30)
        XCTAssertNotEqual(result.status, 0, "expected a failure, got: \(result.stderr)", file: file, line: line)
        let last = result.stderr.split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertTrue(last.hasPrefix("appliance: "), last, file: file, line: line)
        return last
    }

    private func base(_ body: String) -> String {
        "data_dir = \"\(directory.path)/data\"\n[audio]\nsource = \"test\"\n[preview]\nsink = \"none\"\n" + body
    }

    func testMissingV4L2DeviceIsListedAsMissingNotFatal() throws {
        let daemon = try DaemonProcess(
            cameras: """
                [[camera]]
                name = "cam"
                source = "v4l2"
                device = "/dev/video-missing"
                [[camera]]
                name = "spare"
                source = "test"
                """)
        try daemon.start()
        defer { daemon.stop() }
        XCTAssertTrue(daemon.log.contains("camera 'cam': device /dev/video-missing not present"), daemon.log)
        let cameras = try daemon.cameras()
        let cam = try XCTUnwrap(cameras.cameras.first { $0.name == "cam" })
        XCTAssertEqual(cam.state, "missing")
        XCTAssertEqual(cam.device, "/dev/video-missing")
        XCTAssertTrue((cam.detail ?? "").contains("/dev/video-missing"))
        XCTAssertEqual(cameras.active, "spare", "the next working camera takes over")
        XCTAssertThrowsError(try daemon.switchCamera(.named("cam"))) { refused in
            let error = refused as? ApplianceError
            XCTAssertEqual(error?.code.rawValue, "unavailable", "\(refused)")
            XCTAssertTrue((error?.message ?? "").contains("/dev/video-missing"), "\(refused)")
        }
    }

    func testAutoCameraFallsBackWithAWarning() throws {
        let daemon = try DaemonProcess(
            cameras: "[[camera]]\nname = \"cam\"\nsource = \"auto\"\ndevice = \"/dev/video-missing\"")
        try daemon.start()
        defer { daemon.stop() }
        XCTAssertTrue(daemon.log.contains("warning"), daemon.log)
        XCTAssertTrue(daemon.log.contains("/dev/video-missing not present"), daemon.log)
        XCTAssertEqual(try daemon.status().cameraSources["cam"], "test")
    }

    func testBrokenPipelineFragmentNamesItAndGStreamersMessage() throws {
        let line = try failure(
            base("[[camera]]\nname = \"cam\"\nsource = \"pipeline\"\npipeline = \"videotestsrc ! nosuchelement\"\n"))
        XCTAssertTrue(line.contains("camera 'cam' pipeline"), line)
        XCTAssertTrue(line.contains("nosuchelement"), line)
    }

    func testUnknownEncoderNamesTheFragment() throws {
        let line = try failure(base("[video]\nencoder = \"nope\"\n"))
        XCTAssertTrue(line.contains("encoders/nope.gst"), line)
        XCTAssertTrue(line.contains("x264"), "lists what is available: \(line)")
    }

    /// Channels that together ask an encoder for more than its budget are refused at start, with one line naming
    /// the budget and the channel that took it (`EncoderAdmissionTests` has the arithmetic; the shipped V4L2
    /// fragment's budget is H.264 level 4's).
    func testChannelsOverTheirEncodersBudgetAreRefused() throws {
        let pipelines = directory.appendingPathComponent("pipelines").path
        try FileManager.default.copyItem(atPath: EncoderChoiceTests.repository + "/pipelines", toPath: pipelines)
        try "# budget: 12000 macroblocks/s\n\(EncoderFailoverTests.x264)\n".write(
            toFile: pipelines + "/encoders/tiny.gst", atomically: true, encoding: .utf8)
        let line = try failure(
            "pipelines_dir = \"\(pipelines)\"\n"
                + base(
                    """
                    [video]
                    width = 320
                    height = 240
                    encoder = "tiny"
                    [[camera]]
                    name = "road"
                    source = "test"
                    [[camera]]
                    name = "cabin"
                    source = "test"
                    """ + FrontAndRear.channels(front: "road", rear: "cabin")))
        XCTAssertEqual(
            line,
            """
            appliance: channel rear refused: 320x180 at 30 fps is 7200 macroblocks a second, and tiny (x264enc) \
            carries 12000 a second, 9000 of them taken by front: lower its size or rate, or give it another encoder
            """)
    }

    func testUnknownPreviewNamesTheFragmentAndTheChoices() throws {
        let line = try failure(base("").replacingOccurrences(of: "sink = \"none\"", with: "sink = \"hologram\""))
        XCTAssertTrue(line.contains("previews/hologram.gst"), line)
        XCTAssertTrue(line.contains("gl, kms, kms-fullscreen, wayland"), line)
        let invalid = try failure("[preview]\nsink = \"../etc\"\n")
        XCTAssertTrue(invalid.contains(":2: preview.sink"), invalid)
    }

    func testBadValueNamesKeyAndLine() throws {
        let line = try failure("data_dir = \"/tmp\"\n\n[video]\nwidth = \"wide\"\n")
        XCTAssertTrue(line.contains(":4: video.width"), line)
        XCTAssertTrue(line.contains("integer"), line)
        let range = try failure("[video]\nframerate = 0\n")
        XCTAssertTrue(range.contains(":2: video.framerate"), range)
    }

    func testUnknownKeyAndSyntaxErrors() throws {
        XCTAssertTrue(try failure("[video]\nwidht = 1280\n").contains("video.widht: unknown key"))
        let syntax = try failure("[video\nwidth = 1\n")
        XCTAssertTrue(syntax.contains("bad.toml:1"), syntax)
    }

    func testUnreadableConfig() throws {
        XCTAssertTrue(
            try failure(arguments: ["run", "--config", directory.path + "/missing.toml"]).contains("no such file"))
        let binary = directory.appendingPathComponent("binary.toml").path
        _ = FileManager.default.createFile(atPath: binary, contents: Data([0xff, 0xfe, 0x00, 0x80]))
        XCTAssertTrue(try failure(arguments: ["run", "--config", binary]).contains("cannot read"))
    }

    func testDataDirThatCannotBeWritten() throws {
        let blocker = directory.appendingPathComponent("a-file").path
        _ = FileManager.default.createFile(atPath: blocker, contents: Data("x".utf8))
        let line = try failure("data_dir = \"\(blocker)/data\"\n")
        XCTAssertTrue(line.contains("data dir"), line)
        XCTAssertTrue(line.contains(blocker), line)
    }
}
