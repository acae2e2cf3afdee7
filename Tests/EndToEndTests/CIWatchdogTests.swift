import ApplianceBase
import Foundation
import TestSupport
import XCTest

/// `.ci/swift-test.sh`'s watchdog, run on a stand-in `swift` whose test process passes one test and then hangs: the
/// run must name the hung test, print its stacks, stop it, count it failed and still end with its summary, instead
/// of waiting until CI's time is up (a hung RTSP client once made a CI run time out).
final class CIWatchdogTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testAHungTestIsNamedStoppedAndCountedFailed() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ci-watchdog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let pidFile = folder.appendingPathComponent("hung.pid").path
        // The stand-in: a process named like XCTest's runner that passes a test, starts another and never ends.
        let fake = folder.appendingPathComponent("swift")
        try """
        #!/bin/bash
        exec python3 -c '
        import os, sys, time
        open(sys.argv[1], "w").write(str(os.getpid()))
        print("Test Case \\x27Fake.testPasses\\x27 started at now")
        print("Test Case \\x27Fake.testPasses\\x27 passed (0.001 seconds)")
        print("Test Case \\x27Fake.testHangs\\x27 started at now", flush=True)
        time.sleep(600)  # the subject: a test that hangs
        ' \(pidFile) fake.xctest
        """.write(to: fake, atomically: true, encoding: .utf8)
        chmod(fake.path, 0o755)

        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = folder.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["STALL_LIMIT"] = "3"
        environment["STALL_POLL"] = "1"
        environment["APPLIANCE_SKIP_LAB"] = "1"
        environment["APPLIANCE_SKIP_DEB"] = "1"
        environment["APPLIANCE_SKIP_MEMCHECK"] = "1"
        environment["APPLIANCE_CI_PHASES"] = folder.appendingPathComponent("phases").path
        let run = try ProcessOutcome.run(
            "/bin/bash", ["-c", "cd \"$0\" && exec bash .ci/swift-test.sh", Self.root.path],
            environment: environment, timeout: 120)

        XCTAssertNotEqual(run.status, 0, run.output)
        XCTAssertTrue(run.stdout.contains("---- stalled: no output for 3 s; the last test started: ----"), run.output)
        XCTAssertTrue(run.stdout.contains("Test Case 'Fake.testHangs' started"), run.output)
        XCTAssertTrue(run.stdout.contains("Test Case 'stall watchdog' failed"), run.output)
        XCTAssertTrue(run.stdout.contains("phases: host-tests"), run.output)
        XCTAssertTrue(run.stdout.hasSuffix("tests: 1 passed, 1 failed, 0 skipped\n"), run.output)
        let pid = try XCTUnwrap(Int32(String(contentsOfFile: pidFile, encoding: .utf8)))
        XCTAssertEqual(kill(pid, 0), -1, "the hung process was stopped")
    }
}
