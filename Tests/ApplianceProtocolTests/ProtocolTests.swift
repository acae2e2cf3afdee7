import ApplianceProtocol
import Foundation
import XCTest

/// The wire form of requests and responses: strict parsing, stable error codes, one line per answer.
final class ProtocolTests: XCTestCase {
    private func parse(_ line: String) throws(ApplianceError) -> Command {
        let request = try RequestLine.parse(Data(line.utf8))
        return try Command(name: request.command, arguments: request.arguments)
    }

    private func code(_ line: String) -> ApplianceError.Code? {
        do {
            _ = try parse(line)
            return nil
        } catch {
            return error.code
        }
    }

    func testRequestsBecomeCommands() throws {
        let request = try RequestLine.parse(Data(#"{"id": 3, "command": "record.start", "args": {"title": "x"}}"#.utf8))
        XCTAssertEqual(request.id, .int(3))
        XCTAssertEqual(try Command(name: request.command, arguments: request.arguments), .recordStart(title: "x"))
        XCTAssertEqual(try parse(#"{"command": "list"}"#), .list(page: 1, perPage: 10))
        XCTAssertEqual(try parse(#"{"command": "switch", "args": {"next": true}}"#), .switchCamera(.next(channel: nil)))
        XCTAssertEqual(
            try parse(#"{"command": "switch", "args": {"next": true, "channel": "rear"}}"#),
            .switchCamera(.next(channel: "rear")))
        XCTAssertThrowsError(try parse(#"{"command": "switch", "args": {"camera": "a", "channel": "rear"}}"#))
        XCTAssertEqual(
            try parse(#"{"command": "delete", "args": {"id": "ab", "force": null}}"#), .delete(id: "ab", force: false))
        XCTAssertEqual(
            try RequestLine.parse(Data(#"{"command": "ping", "id": {"a": [1, "b"]}}"#.utf8)).id,
            .object(["a": .array([.int(1), .string("b")])]), "any JSON id is echoed as sent")
    }

    /// The web API's POST body: no bytes is no arguments; anything else must be a JSON object (whitespace alone is not
    /// JSON, as schemathesis pointed out).
    func testAnArgumentsBodyIsEmptyOrAnObject() throws {
        XCTAssertEqual(try RequestLine.parseArguments(Data()), [:])
        XCTAssertEqual(try RequestLine.parseArguments(Data(#" {"title": "x"} "#.utf8)), ["title": .string("x")])
        for body in [" ", "\n", "\r\n\t", "[]", "null", #""x""#] {
            XCTAssertThrowsError(try RequestLine.parseArguments(Data(body.utf8)), body.debugDescription) { error in
                XCTAssertEqual((error as? ApplianceError)?.code, .badRequest)
            }
        }
    }

    func testMalformedRequestsAreBadRequests() {
        for line in [
            "", "nope", "[]", "42", #"{"command": null}"#, #"{"command": 1}"#, #"{"command": "x", "args": []}"#,
            #"{"command": "record.start", "args": {"titel": "x"}}"#, #"{"command": "rename", "args": {"id": "a"}}"#,
            #"{"command": "switch"}"#, #"{"command": "switch", "args": {"camera": "a", "next": true}}"#,
        ] {
            XCTAssertEqual(code(line), .badRequest, line)
        }
        XCTAssertEqual(code(#"{"command": "explode"}"#), .unknownCommand)
        let bomb = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        XCTAssertEqual(code(bomb), .badRequest, "refused before decoding, at once")
        XCTAssertEqual(
            try parse(#"{"command": "rename", "args": {"id": "a", "title": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"{"}}"#),
            .rename(id: "a", title: "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"{"), "brackets in strings do not count")
        XCTAssertEqual(code(#"{"command": "a", "args": {"title": 1}}"#), .unknownCommand, "the name is checked first")
    }

    func testShareAndFilterArgumentsAreChecked() {
        func code(_ line: String) -> String? {
            do {
                _ = try parse(line)
                return nil
            } catch { return error.code.rawValue }
        }
        XCTAssertEqual(code(#"{"command":"share"}"#), "bad_request")  // id is required
        XCTAssertEqual(code(#"{"command":"share","args":{"id":"a","hours":0}}"#), "bad_request")
        XCTAssertEqual(code(#"{"command":"share","args":{"id":"a","hours":"x"}}"#), "bad_request")
        XCTAssertEqual(code(#"{"command":"unshare","args":{}}"#), "bad_request")
        XCTAssertEqual(code(#"{"command":"list","args":{"search":"a","grouped":true}}"#), "bad_request")
        XCTAssertEqual(code(#"{"command":"list","args":{"from":"yesterday"}}"#), "bad_request")
        XCTAssertNil(code(#"{"command":"list","args":{"search":"a","from":"2026-11-23T00:00:00Z"}}"#))
        XCTAssertEqual(
            try? parse(#"{"command":"list","args":{"channel":"rear"}}"#),
            .listFiltered(ListFilter(channel: "rear"), page: 1, perPage: Command.defaultPerPage))
        XCTAssertEqual(code(#"{"command":"list","args":{"channel":"rear","group":"x"}}"#), "bad_request")
        XCTAssertEqual(code(#"{"command":"list","args":{"channel":7}}"#), "bad_request")
        XCTAssertEqual(code(#"{"command":"record.start","args":{"channel":""}}"#), "bad_request")
        XCTAssertEqual(code(#"{"command":"record.stop","args":{"channel":false}}"#), "bad_request")
        XCTAssertEqual(code(#"{"command":"record.toggle","args":{"channels":"a"}}"#), "bad_request")
        let long = String(repeating: "c", count: 65)
        XCTAssertEqual(code(#"{"command":"list","args":{"channel":"\#(long)"}}"#), "bad_request")
    }

    func testCameraDiscoveryArgumentsAreChecked() throws {
        func code(_ line: String) -> String? {
            do {
                _ = try parse(line)
                return nil
            } catch { return error.code.rawValue }
        }
        XCTAssertEqual(code(#"{"command":"cameras.discover","args":{"seconds":100}}"#), "bad_request")
        XCTAssertEqual(code(#"{"command":"cameras.discover","args":{"seconds":0}}"#), "bad_request")
        XCTAssertEqual(
            code(#"{"command":"cameras.discover","args":{"user":"admin"}}"#), "bad_request", "username, not user")
        XCTAssertEqual(code(#"{"command":"cameras.discover","args":{"password":7}}"#), "bad_request")
        XCTAssertEqual(
            try parse(#"{"command":"cameras.discover","args":{"username":"admin","password":"pw"}}"#),
            .discoverCameras(CameraDiscoveryRequest(username: "admin", password: Secret("pw"))))
        XCTAssertTrue(Command.Name.discoverCameras.needsAdmin, "it sends a camera password")
    }

    func testIntegersAndBooleansAreNotConfused() throws {
        XCTAssertEqual(
            try parse(#"{"command": "list", "args": {"page": 2, "per_page": 5}}"#), .list(page: 2, perPage: 5))
        for line in [
            #"{"command": "list", "args": {"page": true}}"#, #"{"command": "list", "args": {"page": 1.5}}"#,
            #"{"command": "list", "args": {"page": "2"}}"#, #"{"command": "delete", "args": {"id": "a", "force": 1}}"#,
            #"{"command": "record.stop", "args": {"title": 7}}"#,
        ] {
            XCTAssertEqual(code(line), .badRequest, line)
        }
    }

    func testEveryCommandSurvivesTheWire() throws {
        for name in Command.Name.allCases {
            let examples = WireExamples.commands(name)
            XCTAssertFalse(examples.isEmpty, "\(name)")
            for (command, _) in examples {
                XCTAssertEqual(command.wireName, name)
                let line = try RequestLine(command).encoded()
                XCTAssertEqual(line.last, UInt8(ascii: "\n"))
                XCTAssertEqual(try parse(String(decoding: line, as: UTF8.self)), command)
            }
        }
    }

    func testEveryWireNameIsKnownAndUnknownOnesAreRefused() {
        XCTAssertEqual(Set(Command.names), Set(Command.Name.allCases.map(\.rawValue) + ["events"]))
        XCTAssertEqual(Command.names.count, Set(Command.names).count, "no name twice")
        for name in Command.Name.allCases {
            XCTAssertNotEqual(
                code(#"{"command": "\#(name.rawValue)", "args": {"no_such_argument": 1}}"#), .unknownCommand,
                name.rawValue)
        }
        XCTAssertEqual(code(#"{"command": "record.begin"}"#), .unknownCommand)
    }

    func testResponsesAreOneLineOfJSON() throws {
        let ok = ResponseLine.success(
            id: .string("a"), result: SnapshotResult(id: "s", path: "/x/y", width: 2, height: 1))
        XCTAssertEqual(ok.filter { $0 == UInt8(ascii: "\n") }.count, 1)
        XCTAssertEqual(ok.last, UInt8(ascii: "\n"))
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: ok) as? [String: Any])
        XCTAssertEqual(object["ok"] as? Bool, true)
        XCTAssertEqual(object["id"] as? String, "a")
        XCTAssertEqual((object["result"] as? [String: Any])?["path"] as? String, "/x/y")
        guard case .success(let result) = try ResponseLine.decode(ok, for: .snapshot()) else {
            return XCTFail("an ok answer")
        }
        XCTAssertEqual(result, .snapshot(SnapshotResult(id: "s", path: "/x/y", width: 2, height: 1)))

        let failure = ResponseLine.failure(id: .null, error: ApplianceError(.busy, "wait"))
        let decoded = try XCTUnwrap(try JSONSerialization.jsonObject(with: failure) as? [String: Any])
        XCTAssertEqual((decoded["error"] as? [String: String])?["code"], "busy")
        XCTAssertTrue(decoded["id"] is NSNull)
        guard case .failure(let error) = try ResponseLine.decode(failure, for: .status) else {
            return XCTFail("an error answer")
        }
        XCTAssertEqual(error, ApplianceError(.busy, "wait"))
    }
}

/// The Prometheus text that `ctl metrics` prints and `/metrics` will serve.
final class MetricsTextTests: XCTestCase {
    func testTextFormatWithEscapesSortedLabelsAndExactIntegers() throws {
        let report = MetricsReport(families: [
            MetricFamily(
                "appliance_frames_in_total", .counter, "Frames in.\nSecond line \\ done.",
                [MetricSample(1_234_567, ["camera": "front"]), MetricSample(3, ["camera": "say \"hi\"\n"])]),
            MetricFamily("appliance_av_offset_seconds", .gauge, "A/V.", value: -0.0204),
            MetricFamily(
                "appliance_info", .gauge, "Info.", [MetricSample(1, ["version": "0.5.0", "encoder": "x264"])]),
        ])
        XCTAssertEqual(
            report.prometheusText,
            """
            # HELP appliance_frames_in_total Frames in.\\nSecond line \\\\ done.
            # TYPE appliance_frames_in_total counter
            appliance_frames_in_total{camera="front"} 1234567
            appliance_frames_in_total{camera="say \\"hi\\"\\n"} 3
            # HELP appliance_av_offset_seconds A/V.
            # TYPE appliance_av_offset_seconds gauge
            appliance_av_offset_seconds -0.0204
            # HELP appliance_info Info.
            # TYPE appliance_info gauge
            appliance_info{encoder="x264",version="0.5.0"} 1

            """)
        // A histogram: cumulative buckets, +Inf, sum and count, under the family's one HELP and TYPE.
        let histogram = MetricsReport(families: [
            .histogram("appliance_object_run_ms", "Run time.", bounds: [10, 50], counts: [1, 3], count: 4, sum: 97.5)
        ])
        XCTAssertEqual(
            histogram.prometheusText,
            """
            # HELP appliance_object_run_ms Run time.
            # TYPE appliance_object_run_ms histogram
            appliance_object_run_ms_bucket{le="10"} 1
            appliance_object_run_ms_bucket{le="50"} 3
            appliance_object_run_ms_bucket{le="+Inf"} 4
            appliance_object_run_ms_sum 97.5
            appliance_object_run_ms_count 4

            """)
        XCTAssertEqual(histogram["appliance_object_run_ms"]?.value(), 4, "a histogram's value is its count")
        // Typed on the wire like every result.
        let decoded = try CommandResult.decode(for: .metrics, from: Data(CommandResult.metrics(report).json.utf8))
        XCTAssertEqual(decoded, .metrics(report))
        XCTAssertEqual(try Command(name: "metrics", arguments: [:]), .metrics)
        XCTAssertThrowsError(try Command(name: "metrics", arguments: ["format": .string("text")]))
    }
}

/// A connect that fails must close its socket once: a second close hits whatever descriptor another thread was
/// given in between (the daemon probing a stale socket after a crash closed libudev's and libpulse's descriptors,
/// and they aborted).
final class ControlClientDescriptorTests: XCTestCase {
    func testARefusedConnectNeverClosesAnotherThreadsDescriptor() throws {
        // A stale socket file: bound, then its socket closed, so connecting is refused.
        let path = "/tmp/appliance-stale-\(UUID().uuidString.prefix(8)).sock"
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        XCTAssertEqual(bound, 0)
        close(listener)
        defer { unlink(path) }

        // Another thread keeps opening descriptors and checks each is still its own before closing it.
        let done = NSLock()
        let stolen = NSLock()
        nonisolated(unsafe) var finished = false
        nonisolated(unsafe) var stolenCount = 0
        let ended = DispatchSemaphore(value: 0)
        let other = Thread {
            defer { ended.signal() }
            while done.withLock({ !finished }) {
                let fd = open("/dev/null", O_RDONLY)
                for _ in 0..<20 where fcntl(fd, F_GETFD) == -1 {
                    stolen.withLock { stolenCount += 1 }
                    break
                }
                close(fd)
            }
        }
        other.start()
        var refused = 0
        for _ in 0..<30_000 where (try? ControlClient(path: path, timeout: 1)) == nil { refused += 1 }
        done.withLock { finished = true }
        XCTAssertEqual(ended.wait(timeout: .now() + 5), .success, "the other thread ended its checks")
        XCTAssertEqual(refused, 30_000)
        XCTAssertEqual(
            stolen.withLock { stolenCount }, 0, "descriptors of another thread were closed by failed connects")
    }
}
