import Accounts
import ApplianceBase
import ApplianceProtocol
import Engine
import Foundation
import FrontEndInterface
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import MediaLibrary
import NIOCore
import ONVIF
import Settings
import XCTest

@testable import ApplianceApp
@testable import ApplianceWeb

/// The dashboard's router in-process (HummingbirdTesting's `.router` framework: no socket, no daemon) on a real
/// library (in memory) and a real data folder (a temporary directory). What the web layer hands the core is seen
/// at the one entry point: every typed `Command` the routes send is kept in `sent`, and `answer` gives the typed
/// result the core would (the core's own behaviour is the end-to-end tests' business).
final class WebHarness: Sendable {
    static let password = "correct-horse-battery-staple"
    let library: Library
    let data: DataDirectory
    let events = EventHub()
    let context: FrontEndContext
    /// The engine's live view behind `context.live`: a test hands it frames as the live branch would.
    let live = LiveView(fps: 5, width: 320, height: 180)
    private let sentCommands = Locked<[Command]>([])
    private let root: String

    var sent: [Command] { sentCommands.withLock { $0 } }

    /// The default answer: the core is not part of the test.
    static func unavailable(_ command: Command) throws(ApplianceError) -> CommandResult {
        throw ApplianceError(.unavailable, "not in this test: \(command.name)")
    }

    /// `password`: a `[web] token_file` holding `WebHarness.password`; without one the dashboard is loopback-only.
    /// `whep`: what answers WebRTC offers (default: refused, as with `[web] webrtc_viewers = 0`).
    init(
        password: Bool = true, publicRead: Bool = false, whep: any WHEPSessions = RefusedWHEP(),
        otherChannels: [LiveChannels.Channel] = [],
        answer: @escaping @Sendable (Command) throws(ApplianceError) -> CommandResult = WebHarness.unavailable,
        change: (inout ApplianceConfig) -> Void = { _ in }
    ) throws {
        root =
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "appliance-web-\(UUID().uuidString.prefix(8))"
            ).path
        data = try DataDirectory(path: root + "/data")
        library = try Library.inMemory()
        var config = ApplianceConfig()
        config.dataDir = data.root
        config.web.listen = "127.0.0.1:0"
        config.web.publicRead = publicRead
        if password {
            config.web.tokenFile = root + "/token"
            try (Self.password + "\n").write(toFile: config.web.tokenFile, atomically: true, encoding: .utf8)
            // as the daemon requires
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: config.web.tokenFile)
        }
        change(&config)
        let live = self.live
        let sentCommands = self.sentCommands
        var context = FrontEndContext(
            config: config,
            perform: { command throws(ApplianceError) in
                sentCommands.withLock { $0.append(command) }
                return try answer(command)
            },
            events: events, live: live, webrtc: whep,
            media: MediaCatalog(library: library, data: data, channels: config.channels.map(\.name)),
            reporter: FrontEndReporter(web: WebStatus(state: .starting, listen: config.web.listen), live: live),
            accounts: try AccountBook(
                library: library, tokenFile: password ? try Password(file: config.web.tokenFile) : nil, cost: 4),
            logger: Logger(label: "web-test", factory: { _ in SwiftLogNoOpLogHandler() }),
            otherChannels: otherChannels)
        if config.onvif.enabled {
            let status = ONVIFStatus(
                discovery: .off, listen: "off", endpoint: "urn:uuid:test",
                authentication: password ? "ws-usernametoken" : "none")
            let perform = context.perform
            context.onvif = ONVIFDevice(
                config: config, password: password ? try Password(file: config.web.tokenFile) : nil,
                link: ONVIFLink(status), serial: "TESTSERIAL",
                logger: context.logger, channels: config.channels.dropFirst().map(config.forChannel),
                status: { if case .status(let report)? = try? await perform(.status) { report } else { nil } })
        }
        self.context = context
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// Runs `body` against a fresh router (fresh sessions and login throttle) for this context.
    func test(_ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let router = try WebService.router(context: context, streams: StreamRegistry())
        try await Application(router: router).test(.router, body)
    }

    /// A finished recording of `bytes` random bytes (the web layer serves bytes; what they encode is not its concern),
    /// with a thumbnail of `thumbnailBytes`, in the library and on disk.
    func addRecording(bytes: Int = 100_000, thumbnailBytes: Int = 5_000, title: String = "A walk in the park")
        async throws -> (Recording, Data, Data)
    {
        let id = UUID().uuidString.lowercased()
        let video = Data((0..<bytes).map { _ in UInt8.random(in: 0...255) })
        let thumbnail = Data((0..<thumbnailBytes).map { _ in UInt8.random(in: 0...255) })
        var recording = Recording(
            id: id, title: title, createdAt: Date(), path: data.root + "/recordings/\(id).mp4", state: .complete)
        recording.thumbnail = data.root + "/recordings/\(id).jpg"
        try video.write(to: URL(fileURLWithPath: recording.path))
        try thumbnail.write(to: URL(fileURLWithPath: recording.thumbnail!))
        try await library.insert(recording)
        return (recording, video, thumbnail)
    }

    /// A snapshot file where the snapshot command leaves one.
    func addSnapshot(bytes: Int = 8_000) throws -> (id: String, data: Data) {
        let id = UUID().uuidString.lowercased()
        let bytes = Data((0..<bytes).map { _ in UInt8.random(in: 0...255) })
        let path = data.snapshotPath(id: id)
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try bytes.write(to: URL(fileURLWithPath: path))
        return (id, bytes)
    }
}

extension TestClientProtocol {
    /// A request with the bearer token unless `auth` is false; `headers` as "Name: value" lines. A body is declared
    /// `application/json` (as the pages and curl send it) unless `headers` name another type.
    func request(
        _ uri: String, method: HTTPRequest.Method = .get, headers: [String] = [], auth: Bool = true,
        body: String? = nil
    ) async throws -> TestResponse {
        var fields = HTTPFields()
        if body != nil, !headers.contains(where: { $0.lowercased().hasPrefix("content-type:") }) {
            fields[.contentType] = "application/json"
        }
        for line in headers {
            let parts = line.split(separator: ":", maxSplits: 1)
            fields.append(
                HTTPField(name: HTTPField.Name(String(parts[0]))!, value: parts[1].trimmingCharacters(in: .whitespaces))
            )
        }
        if auth { fields[.authorization] = "Bearer \(WebHarness.password)" }
        return try await execute(uri: uri, method: method, headers: fields, body: body.map { ByteBuffer(string: $0) })
    }

    func post(_ uri: String, _ json: String = "{}", headers: [String] = [], auth: Bool = true) async throws
        -> TestResponse
    {
        try await request(uri, method: .post, headers: headers, auth: auth, body: json)
    }
}

extension TestResponse {
    var data: Data { Data(body.readableBytesView) }
    var text: String { String(buffer: body) }
    func header(_ name: String) -> String? { headers[HTTPField.Name(name)!] }
    /// An error answer's `error.code`.
    var errorCode: String? {
        struct Answer: Decodable {
            struct Failure: Decodable { var code: String }
            var error: Failure
        }
        return (try? JSONDecoder().decode(Answer.self, from: data))?.error.code
    }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try WireFormat.decoder.decode(type, from: data) }
}

/// WebRTC refused, as the daemon refuses it with `[web] webrtc_viewers = 0`.
struct RefusedWHEP: WHEPSessions {
    var count: Int { 0 }

    func answer(offer: String, sound: Bool) async throws(ApplianceError) -> WHEPAnswer {
        throw ApplianceError(.unavailable, "WebRTC is off ([web] webrtc_viewers = 0)")
    }

    func setSound(_ id: String, on: Bool) async throws(ApplianceError) {
        throw ApplianceError(.notFound, "no WebRTC session \(id)")
    }

    func setTalk(_ id: String, on: Bool) async throws(ApplianceError) {
        throw ApplianceError(.notFound, "no WebRTC session \(id)")
    }

    func end(_ id: String) async throws(ApplianceError) { throw ApplianceError(.notFound, "no WebRTC session \(id)") }
}
