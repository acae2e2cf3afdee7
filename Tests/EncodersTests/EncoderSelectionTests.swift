import ApplianceBase
import ApplianceProtocol
import Engine
import Foundation
import GStreamerKit
import Logging
import Settings
import XCTest

@testable import Encoders

/// `[video] encoder = "auto"` with the real encoders this machine has (openh264enc, x264enc) and candidates that are
/// present but broken: one names an element that is not installed, one fails to negotiate, one returns the wrong
/// size, one does not finish in time. The first that returns decodable H.264 of the right size is chosen; the choice
/// is cached for the boot and tried again when the settings change.
final class EncoderSelectionTests: XCTestCase {
    var directory: URL!
    var library: FragmentLibrary!

    override func setUpWithError() throws {
        GStreamer.initialize()
        directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("appl-encoders-\(UUID().uuidString.prefix(8))")
        let pipelines = directory.appendingPathComponent("pipelines")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        try FileManager.default.copyItem(at: repository.appendingPathComponent("pipelines"), to: pipelines)
        let fragments = [
            "missing": "nosuchh264enc bitrate=${bitrate_kbps}",
            "broken": "x264enc bitrate=${bitrate_kbps} ! capsfilter caps=video/x-h264,profile=no-such-profile",
            "small":
                """
            videoscale ! capsfilter caps=video/x-raw,width=160,height=120 ! x264enc bitrate=${bitrate_kbps} \
            key-int-max=${keyframe_frames}
            """,
            "slow": "x264enc bitrate=${bitrate_kbps} ! identity sleep-time=400000",
        ]
        for (name, text) in fragments {
            try text.write(
                to: pipelines.appendingPathComponent("encoders/\(name).gst"), atomically: true, encoding: .utf8)
        }
        library = try FragmentLibrary.locate(configured: pipelines.path)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: directory) }

    func video(_ candidates: [String]) -> ApplianceConfig.Video {
        var video = ApplianceConfig.Video()
        (video.width, video.height, video.framerate, video.encoderCandidates, video.encoderTrialS) = (
            320, 240, 15, candidates, 2
        )
        return video
    }

    func selector(_ video: ApplianceConfig.Video, runner: CountingTrials) -> EncoderSelector {
        EncoderSelector(
            video: video, library: library, runner: runner, cache: EncoderChoiceCache(dataDir: directory.path),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
    }

    func testTheFirstCandidateThatReallyEncodesIsChosen() async throws {
        let runner = CountingTrials()
        let choice = try await selector(
            video(["missing", "broken", "small", "slow", "openh264", "x264"]), runner: runner
        ).choose()
        XCTAssertEqual([choice.encoder, choice.element, choice.how.rawValue], ["openh264", "openh264enc", "trial"])
        let outcomes = choice.trials.map { "\($0.name):\($0.result.rawValue)" }
        XCTAssertEqual(
            outcomes,
            ["missing:absent", "broken:failed", "small:failed", "slow:timed_out", "openh264:passed", "x264:not_tried"])
        let detail = Dictionary(uniqueKeysWithValues: choice.trials.map { ($0.name, $0.detail) })
        XCTAssertEqual(detail["missing"], "not installed: nosuchh264enc")
        XCTAssertTrue(detail["broken"]?.contains("could not link x264enc") == true, detail["broken"] ?? "")
        XCTAssertTrue(
            detail["small"]?.hasSuffix("decoded at 160x120 in \(choice.trials[2].ms) ms, not 320x240") == true,
            detail["small"] ?? "")
        XCTAssertTrue(detail["slow"]?.contains("did not finish within 2 s") == true, detail["slow"] ?? "")
        XCTAssertTrue(
            detail["openh264"]?.hasPrefix("15 of 15 frames decoded at 320x240") == true, detail["openh264"] ?? "")
        XCTAssertEqual(runner.count, 4, "the absent one is not tried, nor any after the choice")
    }

    func testTheChoiceIsCachedUntilTheSettingsChange() async throws {
        let candidates = ["broken", "openh264", "x264"]
        let first = CountingTrials()
        _ = try await selector(video(candidates), runner: first).choose()
        XCTAssertEqual(first.count, 2)
        let again = CountingTrials()
        let cached = try await selector(video(candidates), runner: again).choose()
        XCTAssertEqual([cached.encoder, cached.how.rawValue], ["openh264", "cached"])
        XCTAssertEqual(again.count, 0, "no trial on a restart in the same boot")
        XCTAssertEqual(cached.trials.map(\.result), [.failed, .passed, .notTried])

        var faster = video(candidates)
        faster.bitrateKbps = 2000
        let changed = CountingTrials()
        let retried = try await selector(faster, runner: changed).choose()
        XCTAssertEqual(retried.how, .trial, "new settings: tried again")
        XCTAssertEqual(changed.count, 2)
        try "x264enc bitrate=${bitrate_kbps}".write(
            toFile: library.directory + "/encoders/broken.gst", atomically: true, encoding: .utf8)
        let edited = CountingTrials()
        let now = try await selector(faster, runner: edited).choose()
        XCTAssertEqual(
            [now.encoder, now.how.rawValue], ["broken", "trial"], "an edited fragment is tried again (and now works)")
    }

    func testNothingWorkingIsOneLineNamingEachCandidate() async throws {
        do {
            _ = try await selector(video(["missing", "broken"]), runner: CountingTrials()).choose()
            XCTFail("no encoder works")
        } catch {
            let line = "\(error)"
            XCTAssertTrue(
                line.hasPrefix(
                    "no H.264 encoder works: missing absent (not installed: nosuchh264enc); broken failed ("), line)
            XCTAssertFalse(line.contains("\n"))
        }
    }

    func testAPinnedEncoderIsNotTried() async throws {
        var pinned = video(["openh264"])
        pinned.encoder = "x264"
        let runner = CountingTrials()
        let choice = try await selector(pinned, runner: runner).choose()
        XCTAssertEqual([choice.encoder, choice.element, choice.how.rawValue], ["x264", "x264enc", "pinned"])
        XCTAssertEqual(runner.count, 0)
    }

    func testFragmentsNameTheirElements() {
        XCTAssertEqual(
            EncoderCandidate.factoryNames(
                in:
                    """
                    # comment\nvideoconvert ! vah264enc bitrate=${bitrate_kbps} ! capsfilter \
                    caps=video/x-h264,level=(string)4 ! video/x-h264
                    """
            ),
            ["videoconvert", "vah264enc", "capsfilter"])
        let candidate = EncoderCandidate.read("v4l2h264", library: library)
        XCTAssertEqual(candidate.element, "v4l2h264enc")
        XCTAssertFalse(candidate.isPresent, "no V4L2 memory-to-memory encoder on this machine")
        XCTAssertEqual(EncoderCandidate.read("x264", library: library).element, "x264enc")
        XCTAssertFalse(EncoderCandidate.read("nothing-here", library: library).isPresent)
    }
}

/// The in-process trials, counted.
final class CountingTrials: EncoderTrialRunner, @unchecked Sendable {
    private let lock = NSLock()
    private var trials = 0
    var count: Int { lock.withLock { trials } }

    func trial(_ candidate: String, video: ApplianceConfig.Video, library: FragmentLibrary, limit: Duration) async
        -> EncoderChoice.Trial
    {
        lock.withLock { trials += 1 }
        return await InProcessEncoderTrials().trial(candidate, video: video, library: library, limit: limit)
    }
}

/// A start on a machine too busy for any trial to answer (the lab's loaded host: both trials `timed_out`, and the
/// daemon refused to start): the trial children here hang as such a start's do, and are killed at the limit. The
/// first software encoder that timed out is used untried (`provisional`), not cached, so the next start tries again;
/// a trial that answers "no" is not overridden.
extension EncoderSelectionTests {
    func hangingTrials() throws -> SubprocessEncoderTrials {
        let script = directory.appendingPathComponent("hanging-trial.sh").path
        try "#!/bin/sh\nexec sleep 60\n".write(toFile: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script)
        return SubprocessEncoderTrials(executable: script, startUp: .milliseconds(300))
    }

    func busySelector(_ video: ApplianceConfig.Video) throws -> EncoderSelector {
        EncoderSelector(
            video: video, library: library, runner: try hangingTrials(),
            cache: EncoderChoiceCache(dataDir: directory.path),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
    }

    func testWhenNoTrialAnswersTheFirstSoftwareEncoderIsUsedUntried() async throws {
        var busy = video(["openh264", "x264"])
        busy.encoderTrialS = 1
        let choice = try await busySelector(busy).choose()
        XCTAssertEqual(
            [choice.encoder, choice.element, choice.how.rawValue], ["openh264", "openh264enc", "provisional"])
        XCTAssertEqual(choice.trials.map(\.result), [.timedOut, .timedOut])
        XCTAssertTrue(choice.trials[0].detail.contains("killed"), choice.trials[0].detail)
        let again = CountingTrials()
        let next = try await selector(busy, runner: again).choose()
        XCTAssertEqual(next.how, .trial, "not kept for the boot: the next start tries again")
        XCTAssertEqual(again.count, 1)
    }

    func testATrialThatSaysNoIsNotOverridden() async throws {
        var busy = video(["missing", "broken"])
        busy.encoderTrialS = 1
        do {
            _ = try await selector(busy, runner: CountingTrials()).choose()
            XCTFail("broken answered no; missing is absent")
        } catch {
            XCTAssertTrue("\(error)".hasPrefix("no H.264 encoder works"), "\(error)")
        }
        XCTAssertNil(
            EncoderSelector.provisional(
                EncoderCandidate.ordered(["missing", "broken"], library: library),
                trials: [.init(name: "broken", element: "x264enc", result: .failed, detail: "no", ms: 1)]))
    }
}

/// Each trial's start and end, in the order they came, around another runner (`hangs`: the candidates whose trial
/// hangs as a busy start's does; the others run in this process).
final class LoggedTrials: EncoderTrialRunner, @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String] = []
    let hanging: SubprocessEncoderTrials
    let hangs: Set<String>
    var log: [String] { lock.withLock { entries } }

    init(hanging: SubprocessEncoderTrials, hangs: Set<String>) { (self.hanging, self.hangs) = (hanging, hangs) }

    func trial(_ candidate: String, video: ApplianceConfig.Video, library: FragmentLibrary, limit: Duration) async
        -> EncoderChoice.Trial
    {
        lock.withLock { entries.append("start \(candidate)") }
        let trial =
            hangs.contains(candidate)
            ? await hanging.trial(candidate, video: video, library: library, limit: limit)
            : await InProcessEncoderTrials().trial(candidate, video: video, library: library, limit: limit)
        lock.withLock { entries.append("end \(candidate) \(trial.result.rawValue)") }
        return trial
    }
}

/// A trial that has run its limit without answering does not hold up the next (`StaggeredTrials`): on a busy start
/// the trials overlap instead of queueing, and the first candidate in order that passes is still the one chosen.
extension EncoderSelectionTests {
    private func loggedSelector(hangs: Set<String>, limitS: Double = 1) throws -> (EncoderSelector, LoggedTrials) {
        var busy = video(["openh264", "x264"])
        busy.encoderTrialS = limitS
        // Each hanging child is killed 4 s after its limit: the next trial starts a limit after the one before.
        var hanging = try hangingTrials()
        hanging = SubprocessEncoderTrials(executable: hanging.executable, startUp: .seconds(4))
        let runner = LoggedTrials(hanging: hanging, hangs: hangs)
        let selector = EncoderSelector(
            video: busy, library: library, runner: runner, cache: nil,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        return (selector, runner)
    }

    func testTrialsThatDoNotAnswerWithinTheirLimitOverlap() async throws {
        let (selector, runner) = try loggedSelector(hangs: ["openh264", "x264"])
        let choice = try await selector.choose()
        XCTAssertEqual(choice.how, .provisional)
        XCTAssertEqual(
            runner.log, ["start openh264", "start x264", "end openh264 timed_out", "end x264 timed_out"],
            "x264's trial began while openh264's went on")
    }

    func testALaterCandidateThatPassesWaitsForTheAnswerOfTheOneBefore() async throws {
        let (selector, runner) = try loggedSelector(hangs: ["openh264"])
        let choice = try await selector.choose()
        XCTAssertEqual([choice.encoder, choice.how.rawValue], ["x264", "trial"])
        XCTAssertEqual(choice.trials.map(\.result), [.timedOut, .passed])
        XCTAssertEqual(runner.log, ["start openh264", "start x264", "end x264 passed", "end openh264 timed_out"])
    }

    func testNoTrialStartsAfterTheFirstCandidateHasPassed() async throws {
        let (selector, runner) = try loggedSelector(hangs: [], limitS: 10)
        let choice = try await selector.choose()
        XCTAssertEqual([choice.encoder, choice.how.rawValue], ["openh264", "trial"])
        XCTAssertEqual(choice.trials.map(\.result), [.passed, .notTried])
        XCTAssertEqual(runner.log, ["start openh264", "end openh264 passed"])
    }
}
