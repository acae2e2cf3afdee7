import Foundation
import TestSupport
import XCTest

/// A real MQTT broker for the tests: Debian's `mosquitto` on 127.0.0.1 with a password file (and a TLS listener
/// signed by a test CA when asked), started, killed and restarted by the test. Clients are mosquitto's own
/// `mosquitto_sub` and `mosquitto_pub`, so the daemon is checked against an independent implementation.
final class MosquittoBroker {
    let directory: String
    let port: Int
    let user = "ha"
    let password = "br0ker-Pässword"
    let tls: TestCertificates?
    private var process: Process?

    init(tls: TestCertificates? = nil) throws {
        self.tls = tls
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("mqtt-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        port = FreePort.pick()
        _ = FileManager.default.createFile(
            atPath: directory + "/passwd", contents: nil, attributes: [.posixPermissions: 0o600])
        let made = try ProcessOutcome.run("/usr/bin/mosquitto_passwd", ["-b", directory + "/passwd", user, password])
        guard made.status == 0 else { throw DaemonError(message: "mosquitto_passwd: \(made.stderr)") }
        var conf = """
            listener \(port) 127.0.0.1
            allow_anonymous false
            password_file \(directory)/passwd
            persistence false
            log_dest file \(directory)/broker.log
            log_type all

            """
        // Started as root, mosquitto changes to user "mosquitto", who cannot read this folder: stay who we are.
        if getuid() == 0 { conf += "user root\n" }
        if let tls {
            conf += "certfile \(tls.serverCertificate)\nkeyfile \(tls.serverKey)\n"
        }
        try conf.write(toFile: directory + "/mosquitto.conf", atomically: true, encoding: .utf8)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    var url: String { "\(tls == nil ? "mqtt" : "mqtts")://127.0.0.1:\(port)" }
    var log: String { (try? String(contentsOfFile: directory + "/broker.log", encoding: .utf8)) ?? "" }

    /// The client options every mosquitto_sub / mosquitto_pub call needs.
    var clientArguments: [String] {
        ["-h", "127.0.0.1", "-p", "\(port)", "-u", user, "-P", password]
            + (tls.map { ["--cafile", $0.caCertificate] } ?? [])
    }

    func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
        process.arguments = ["-c", directory + "/mosquitto.conf"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        let listening = "Opening ipv4 listen socket on port \(port)"
        Poll.until(timeout: 15) { log.contains(listening) || !process.isRunning }
        if log.contains(listening) { return }
        throw DaemonError(message: "mosquitto did not start (packaging/install-deps.sh --test installs it): \(log)")
    }

    /// Kills the broker at once (a crash or a power cut on the broker's side); `start` brings it back on the same port.
    func stop() {
        guard let process else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    /// Publishes one message (QoS 1).
    func publish(_ topic: String, _ payload: String, retain: Bool = false) throws {
        let result = try ProcessOutcome.run(
            "/usr/bin/mosquitto_pub",
            clientArguments + ["-q", "1", "-t", topic, "-m", payload] + (retain ? ["-r"] : []))
        guard result.status == 0 else { throw DaemonError(message: "mosquitto_pub \(topic): \(result.stderr)") }
    }

    /// Publishes each line of `lines` as one message on `topic` (`mosquitto_pub -l`), QoS 1.
    func publishLines(_ topic: String, _ lines: Data) throws {
        let input = directory + "/lines-\(UUID().uuidString.prefix(6))"
        try lines.write(to: URL(fileURLWithPath: input))
        let command = ([("/usr/bin/mosquitto_pub")] + clientArguments + ["-q", "1", "-t", topic, "-l"]).map {
            "'\($0)'"
        }.joined(separator: " ")
        let result = try ProcessOutcome.run("/bin/sh", ["-c", "\(command) < '\(input)'"], timeout: 120)
        guard result.status == 0 else { throw DaemonError(message: "mosquitto_pub -l: \(result.stderr)") }
    }

    /// What the broker holds retained under `filter` now: a fresh subscriber gets them at once.
    func retained(_ filter: String) throws -> [MQTTSeen] {
        // Retained messages come right after the subscription (mosquitto_sub says when it is subscribed, -d), with
        // no end mark: a message published on a topic of the watcher's own once it is subscribed comes after them.
        let end = "appliance-test/end-of-retained/\(UUID().uuidString)"
        let watcher = try MQTTWatcher(broker: self, filter: filter, also: end)
        defer { watcher.stop() }
        _ = watcher.waitFor(5) { _ in watcher.subscribed }
        try publish(end, "end")
        _ = watcher.waitFor(5) { $0.contains { $0.topic == end } }
        return watcher.messages.filter { $0.retained && $0.topic != end }
    }
}

/// One message a watcher saw.
struct MQTTSeen: Equatable {
    var retained: Bool
    var topic: String
    var payload: Data
    var text: String { String(decoding: payload, as: UTF8.self) }
    var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: payload)) as? [String: Any] }
}

/// A `mosquitto_sub` on `filter` for the life of the test, every message kept in order (payloads as hex, so binary
/// thumbnails and newlines survive the line-based output).
final class MQTTWatcher: @unchecked Sendable {
    private let process = Process()
    private let lock = NSLock()
    private var seen: [MQTTSeen] = []
    private var isSubscribed = false

    /// `also`: a second filter subscribed with the first.
    init(broker: MosquittoBroker, filter: String, also: String? = nil) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_sub")
        process.arguments =
            broker.clientArguments + ["-d", "-q", "1", "-t", filter] + (also.map { ["-t", $0] } ?? [])
            + ["-F", "MSG %r %t %x"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let handle = out.fileHandleForReading
        Thread.detachNewThread { [weak self] in
            var buffer = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { return }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                    buffer.removeSubrange(buffer.startIndex...newline)
                    self?.take(line)
                }
            }
        }
    }

    deinit { stop() }

    private func take(_ line: String) {
        if line.contains("Received SUBACK") {
            lock.withLock { isSubscribed = true }
            return
        }
        guard line.hasPrefix("MSG ") else { return }
        let parts = line.dropFirst(4).split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2 else { return }
        let hex = parts.count == 3 ? Array(parts[2].utf8) : []
        var bytes = Data(capacity: hex.count / 2)
        var index = 0
        while index + 1 < hex.count {
            if let byte = UInt8(String(decoding: hex[index...index + 1], as: UTF8.self), radix: 16) {
                bytes.append(byte)
            }
            index += 2
        }
        lock.withLock { seen.append(MQTTSeen(retained: parts[0] == "1", topic: String(parts[1]), payload: bytes)) }
    }

    var subscribed: Bool { lock.withLock { isSubscribed } }
    var messages: [MQTTSeen] { lock.withLock { seen } }

    /// The latest message on `topic`, if any.
    func last(_ topic: String) -> MQTTSeen? { messages.last { $0.topic == topic } }

    /// Waits until `condition` holds for the messages seen so far (checked as they arrive).
    @discardableResult
    func waitFor(_ timeout: TimeInterval, _ condition: ([MQTTSeen]) -> Bool) -> Bool {
        Poll.until(timeout: timeout) { condition(messages) }
    }

    /// Waits for the latest message on `topic` to read `text`.
    @discardableResult
    func waitFor(_ topic: String, _ text: String, timeout: TimeInterval = 20) -> Bool {
        waitFor(timeout) { messages in messages.last { $0.topic == topic }?.text == text }
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}
