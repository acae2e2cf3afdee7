import Foundation
import TestSupport
import XCTest

/// The hardware lab: these tests run inside the VM that Tests/Lab/lab-vm boots (Debian's kernel with vivid,
/// snd-aloop and uinput loaded), where `APPLIANCE_LAB=1`. Everywhere else they are skipped; `make test` runs them
/// in the VM after the host's suite.
enum Lab {
    static var isGuest: Bool { ProcessInfo.processInfo.environment["APPLIANCE_LAB"] == "1" }

    /// Skips the calling test outside the lab.
    static func require() throws {
        try XCTSkipUnless(isGuest, "runs in the VM lab only (Tests/Lab/lab-vm)")
    }

    /// A folder on the guest's tmpfs: SQLite's WAL does not work on the 9p root.
    static var scratch: String { ProcessInfo.processInfo.environment["APPLIANCE_LAB_TMP"] ?? NSTemporaryDirectory() }

    /// Runs a command in the guest and returns its output; a failure throws with the command and its stderr.
    @discardableResult
    static func run(_ command: String, _ arguments: [String], timeout: TimeInterval = 60) throws -> String {
        let path =
            command.hasPrefix("/")
            ? command
            : (["/usr/sbin/", "/usr/bin/", "/sbin/", "/bin/"].map { $0 + command }
                .first { FileManager.default.isExecutableFile(atPath: $0) } ?? command)
        let result = try ProcessOutcome.run(path, arguments, timeout: timeout)
        guard result.status == 0 else {
            throw DaemonError(
                message: "\(command) \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr)")
        }
        return result.stdout
    }

    /// The V4L2 capture node whose driver names itself `name` (/sys/class/video4linux/videoN/name).
    static func videoNode(named name: String) -> String? {
        let root = "/sys/class/video4linux"
        let nodes = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).filter {
            $0.hasPrefix("video")
        }.sorted()
        return nodes.first { node in
            let text = (try? String(contentsOfFile: "\(root)/\(node)/name", encoding: .utf8)) ?? ""
            return text.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix(name)
        }.map { "/dev/\($0)" }
    }

    /// Every vivid instance's capture node, the first instance's first (the lab loads two).
    static func vividNodes(count: Int, timeout: TimeInterval = 10) throws -> [String] {
        var found: [String] = []
        Poll.until(timeout: timeout, every: 0.2) {
            found = (0..<count).compactMap { videoNode(named: String(format: "vivid-%03d", $0)) }
                .filter { FileManager.default.fileExists(atPath: $0) }
            return found.count == count
        }
        guard found.count == count else {
            throw DaemonError(
                message: "\(found.count) of \(count) vivid capture nodes (is vivid loaded with n_devs=2?)")
        }
        return found
    }

    /// vivid's webcam node, after udev-less boots have had a moment to create it.
    static func vivid(timeout: TimeInterval = 10) throws -> String {
        var found: String?
        Poll.until(timeout: timeout, every: 0.2) {
            found = videoNode(named: "vivid").flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil }
            return found != nil
        }
        if let found { return found }
        throw DaemonError(message: "no vivid capture node (is the vivid module loaded?)")
    }

    /// vivid's stable name under /dev/v4l/by-path (udev's link, which follows the device across a replug, where
    /// /dev/videoN may come back with another number): what a user should configure for a camera that is unplugged.
    static func vividStablePath(timeout: TimeInterval = 10) throws -> String {
        let node = try vivid()
        let root = "/dev/v4l/by-path"
        var found: String?
        Poll.until(timeout: timeout, every: 0.2) {
            found = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).map { "\(root)/\($0)" }
                .first { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path == node }
            return found != nil
        }
        if let found { return found }
        throw DaemonError(message: "no /dev/v4l/by-path link to \(node) (is udevd running in the guest?)")
    }

    /// The device nodes under /dev a process holds open (its /proc/PID/fd links), e.g. to see it let go of one.
    static func openDevices(of pid: Int32, prefix: String) -> [String] {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        return fds.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)") }
            .filter { $0.hasPrefix(prefix) }
    }

    /// Makes vivid's picture move every frame (its `horizontal_movement` control: 6 = move right fast), so a
    /// repeated frame shows as two identical decoded frames.
    static func moveVividPicture(_ node: String) throws {
        try run("v4l2-ctl", ["-d", node, "-c", "horizontal_movement=6"])
    }

    /// Unplugs or replugs a platform device by unbinding it from its driver (what a USB unplug looks like to
    /// the driver's users: the node goes away under open file handles). `rmmod` cannot: an open node holds the module.
    static func setBound(_ bound: Bool, driver: String, device: String) throws {
        let path = "/sys/bus/platform/drivers/\(driver)/\(bound ? "bind" : "unbind")"
        guard let handle = FileHandle(forWritingAtPath: path) else { throw DaemonError(message: "cannot open \(path)") }
        defer { try? handle.close() }
        try handle.write(contentsOf: Data(device.utf8))
    }
}
