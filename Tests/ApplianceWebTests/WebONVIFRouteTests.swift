import ApplianceBase
import ApplianceProtocol
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import ONVIF
import XCTest

@testable import ApplianceApp

/// The ONVIF services on the web server, in-process: what they answer (the real status goes in, the device's
/// facts come out), the credentials they ask for (GetSystemDateAndTime alone is open; a replayed or wrong token is
/// `ter:NotAuthorized`), and the faults every bad request gets: hostile or broken XML, an unknown operation, an
/// unknown subscription. Each answer is a SOAP 1.2 envelope, never an empty or plain-text reply.
final class WebONVIFRouteTests: XCTestCase {
    static var status: StatusReport {
        var s = WebTimelineRouteTests.status
        s.width = 1920
        s.height = 1080
        s.framerate = 25
        s.rtsp = RTSPStatus(
            state: .serving, listen: "0.0.0.0:8554", url: "rtsp://192.168.1.10:8554/live", authentication: "digest")
        return s
    }

    func harness(password: Bool = true) throws -> WebHarness {
        try WebHarness(
            password: password,
            answer: { command throws(ApplianceError) in
                guard case .status = command else { throw ApplianceError(.unavailable, "not in this test") }
                return .status(Self.status)
            },
            change: { config in
                config.onvif.enabled = true
                config.rtsp.listen = "0.0.0.0:8554"
                config.video.bitrateKbps = 3000
                config.video.keyframeIntervalS = 2
            })
    }

    func testTheDeviceReportsWhatItSendsAndWhereToFetchIt() async throws {
        try await harness().test { client in
            let profiles = try await client.soap("media_service", "trt:GetProfiles", ns: ONVIFNamespace.media)
            XCTAssertEqual(profiles.status, .ok)
            let profile = try XCTUnwrap(profiles.operation?.child("Profiles"))
            XCTAssertEqual(profile.attribute("token"), "main")
            let encoder = try XCTUnwrap(profile.child("VideoEncoderConfiguration"))
            XCTAssertEqual(encoder.value("Encoding"), "H264")
            XCTAssertEqual(
                [encoder.value("Resolution", "Width"), encoder.value("Resolution", "Height")], ["1920", "1080"])
            XCTAssertEqual(encoder.value("RateControl", "FrameRateLimit"), "25")
            XCTAssertEqual(encoder.value("RateControl", "BitrateLimit"), "3000")
            XCTAssertEqual(encoder.value("H264", "GovLength"), "50", "2 s of 25 frames")
            XCTAssertEqual(profile.child("AudioEncoderConfiguration")?.value("Encoding"), "AAC")

            let stream = try await client.soap(
                "media_service", "trt:GetStreamUri", ns: ONVIFNamespace.media,
                body: "<trt:ProfileToken>main</trt:ProfileToken>")
            XCTAssertEqual(
                stream.operation?.value("MediaUri", "Uri"), "rtsp://localhost:8554/live",
                "the host the client reached, RTSP's port")
            let snapshot = try await client.soap(
                "media_service", "trt:GetSnapshotUri", ns: ONVIFNamespace.media,
                body: "<trt:ProfileToken>main</trt:ProfileToken>")
            XCTAssertEqual(snapshot.operation?.value("MediaUri", "Uri"), "http://localhost/live.jpg")
            let wrongProfile = try await client.soap(
                "media_service", "trt:GetStreamUri", ns: ONVIFNamespace.media,
                body: "<trt:ProfileToken>sub</trt:ProfileToken>")
            XCTAssertEqual(wrongProfile.fault, "ter:NoProfile")

            let services = try await client.soap(
                "device_service", "tds:GetServices", ns: ONVIFNamespace.device,
                body: "<tds:IncludeCapability>false</tds:IncludeCapability>")
            XCTAssertEqual(
                services.operation?.children.map { $0.value("Namespace") ?? "" },
                [ONVIFNamespace.device, ONVIFNamespace.media, ONVIFNamespace.events], "only what is implemented")
            let information = try await client.soap(
                "device_service", "tds:GetDeviceInformation", ns: ONVIFNamespace.device)
            XCTAssertEqual(information.operation?.value("SerialNumber"), "TESTSERIAL")
            XCTAssertEqual(information.operation?.value("FirmwareVersion"), ApplianceVersion.current)
        }
    }

    /// A profile per channel: the first keeps `main` (and the tokens it always had), another is named after its
    /// channel, with its own picture (as status reports it), its stream at `/live/NAME` and its snapshot.
    func testEachChannelIsAProfile() async throws {
        var status = Self.status
        status.channels = WebLiveChannelTests.statuses(front: (1920, 1080, 25), rear: (640, 360, 15))
        let report = status
        let web = try WebHarness(
            password: true,
            answer: { command throws(ApplianceError) in
                guard case .status = command else { throw ApplianceError(.unavailable, "not in this test") }
                return .status(report)
            },
            change: { config in
                config.onvif.enabled = true
                config.rtsp.listen = "0.0.0.0:8554"
                config.video.keyframeIntervalS = 2
                WebLiveChannelTests.twoChannels(&config)
            })
        try await web.test { client in
            let media = ONVIFNamespace.media
            let profiles = try await client.soap("media_service", "trt:GetProfiles", ns: media)
            let listed = profiles.operation?.children ?? []
            XCTAssertEqual(listed.map { $0.attribute("token") }, ["main", "rear"])
            let rear = try XCTUnwrap(listed.last)
            XCTAssertEqual(rear.value("Name"), "rear")
            let encoder = try XCTUnwrap(rear.child("VideoEncoderConfiguration"))
            XCTAssertEqual(encoder.attribute("token"), "h264-rear")
            XCTAssertEqual(
                [encoder.value("Resolution", "Width"), encoder.value("Resolution", "Height")], ["640", "360"])
            XCTAssertEqual(encoder.value("H264", "GovLength"), "30", "2 s of its 15 frames")
            XCTAssertNil(rear.child("AudioEncoderConfiguration"), "the microphone is the front's")
            XCTAssertEqual(listed.first?.child("AudioEncoderConfiguration")?.value("Encoding"), "AAC")

            let stream = try await client.soap(
                "media_service", "trt:GetStreamUri", ns: media, body: "<trt:ProfileToken>rear</trt:ProfileToken>")
            XCTAssertEqual(stream.operation?.value("MediaUri", "Uri"), "rtsp://localhost:8554/live/rear")
            let snapshot = try await client.soap(
                "media_service", "trt:GetSnapshotUri", ns: media, body: "<trt:ProfileToken>rear</trt:ProfileToken>")
            XCTAssertEqual(snapshot.operation?.value("MediaUri", "Uri"), "http://localhost/live.jpg?channel=rear")
            let main = try await client.soap(
                "media_service", "trt:GetStreamUri", ns: media, body: "<trt:ProfileToken>main</trt:ProfileToken>")
            XCTAssertEqual(main.operation?.value("MediaUri", "Uri"), "rtsp://localhost:8554/live")

            let sources = try await client.soap("media_service", "trt:GetVideoSources", ns: media)
            XCTAssertEqual(sources.operation?.children.map { $0.attribute("token") }, ["camera", "camera-rear"])
            let one = try await client.soap(
                "media_service", "trt:GetVideoEncoderConfiguration", ns: media,
                body: "<trt:ConfigurationToken>h264-rear</trt:ConfigurationToken>")
            XCTAssertEqual(one.operation?.value("Configuration", "Resolution", "Width"), "640")
            let unknown = try await client.soap(
                "media_service", "trt:GetVideoEncoderConfiguration", ns: media,
                body: "<trt:ConfigurationToken>h264-garden</trt:ConfigurationToken>")
            XCTAssertEqual(unknown.fault, "ter:NoConfig")
            let capabilities = try await client.soap("media_service", "trt:GetServiceCapabilities", ns: media)
            XCTAssertEqual(
                capabilities.operation?.child("Capabilities")?.child("ProfileCapabilities")?.attribute(
                    "MaximumNumberOfProfiles"), "2")
        }
    }

    /// With `[rtsp] tls` and the dashboard on HTTPS, the URIs an NVR is given say so: rtsps:// and an https://
    /// snapshot (the SOAP services themselves stay on plain HTTP, which the web server lets through for them).
    func testTheURIsFollowTLS() async throws {
        let secure = try WebHarness(
            password: true,
            answer: { command throws(ApplianceError) in
                guard case .status = command else { throw ApplianceError(.unavailable, "not in this test") }
                return .status(Self.status)
            },
            change: { config in
                config.onvif.enabled = true
                config.rtsp.listen = "0.0.0.0:8554"
                config.rtsp.tls = true
                config.web.tls = "on"
            })
        try await secure.test { client in
            let stream = try await client.soap(
                "media_service", "trt:GetStreamUri", ns: ONVIFNamespace.media,
                body: "<trt:ProfileToken>main</trt:ProfileToken>")
            XCTAssertEqual(stream.operation?.value("MediaUri", "Uri"), "rtsps://localhost:8554/live")
            let snapshot = try await client.soap(
                "media_service", "trt:GetSnapshotUri", ns: ONVIFNamespace.media,
                body: "<trt:ProfileToken>main</trt:ProfileToken>")
            XCTAssertEqual(snapshot.operation?.value("MediaUri", "Uri"), "https://localhost/live.jpg")
        }
    }

    func testOnlyTheClockIsOpenAndTokensAreChecked() async throws {
        try await harness().test { client in
            let clock = try await client.soap(
                "device_service", "tds:GetSystemDateAndTime", ns: ONVIFNamespace.device, token: .none)
            XCTAssertEqual(clock.status, .ok)
            XCTAssertEqual(clock.operation?.value("SystemDateAndTime", "DateTimeType"), "NTP")
            let year = Calendar(identifier: .gregorian).component(.year, from: Date())
            XCTAssertEqual(clock.operation?.value("SystemDateAndTime", "UTCDateTime", "Date", "Year"), "\(year)")

            for (token, why) in [
                (SOAPToken.none, "no WS-Security"), (.wrongPassword, "wrong user name or password"),
                (.stale, "more than 300 s"),
            ] {
                let refused = try await client.soap(
                    "device_service", "tds:GetCapabilities", ns: ONVIFNamespace.device, token: token)
                XCTAssertEqual(refused.status, .badRequest)
                XCTAssertEqual(refused.fault, "ter:NotAuthorized")
                XCTAssertTrue(refused.reason.contains(why), refused.reason)
            }
            let signed = SOAPToken.valid.header()
            let first = try await client.soap(
                "device_service", "tds:GetScopes", ns: ONVIFNamespace.device, header: signed)
            XCTAssertEqual(first.status, .ok)
            let replayed = try await client.soap(
                "device_service", "tds:GetScopes", ns: ONVIFNamespace.device, header: signed)
            XCTAssertEqual(replayed.fault, "ter:NotAuthorized")
            XCTAssertTrue(replayed.reason.contains("replayed"))
        }
    }

    func testBadRequestsGetAFaultAndCostNothing() async throws {
        try await harness().test { client in
            let bodies: [(String, String, HTTPResponse.Status)] = [
                (
                    """
                    <?xml version=\"1.0\"?><!DOCTYPE l [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \
                    \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">]><l>&b;</l>
                    """,
                    "ter:WellFormed", .badRequest
                ),
                (
                    "<?xml version=\"1.0\"?><!DOCTYPE a [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><a>&x;</a>",
                    "ter:WellFormed", .badRequest
                ),
                ("<a><b></a>", "ter:WellFormed", .badRequest),
                ("", "ter:WellFormed", .badRequest),
                (
                    """
                    <e:Envelope \
                    xmlns:e=\"http://schemas.xmlsoap.org/soap/envelope/\"><e:Body><x/></e:Body></e:Envelope>
                    """,
                    "ter:WellFormed", .badRequest
                ),
            ]
            for (body, fault, status) in bodies {
                let response = try await client.execute(
                    uri: "/onvif/device_service", method: .post, headers: [.contentType: "application/soap+xml"],
                    body: ByteBuffer(string: body))
                XCTAssertEqual(response.status, status, body)
                XCTAssertEqual(response.header("Content-Type"), ONVIFDevice.Reply.contentType)
                XCTAssertEqual(SOAPAnswer(response).fault, fault, body)
            }
            let huge = try await client.execute(
                uri: "/onvif/device_service", method: .post, headers: [:],
                body: ByteBuffer(string: String(repeating: "<a>", count: 30_000)))
            XCTAssertEqual(huge.status, .contentTooLarge)

            let unknown = try await client.soap("device_service", "tds:SystemReboot", ns: ONVIFNamespace.device)
            XCTAssertEqual([unknown.fault, "\(unknown.status.code)"], ["ter:ActionNotSupported", "500"])
            XCTAssertTrue(unknown.reason.contains("not implemented"), "the words Home Assistant looks for")
            let ptz = try await client.soap(
                "device_service", "tptz:GetPresets", ns: "http://www.onvif.org/ver20/ptz/wsdl")
            XCTAssertEqual(ptz.fault, "ter:ActionNotSupported")
            let gone = try await client.soap(
                "pullpoint/nosuch", "tev:PullMessages", ns: ONVIFNamespace.events,
                body: "<tev:Timeout>PT1S</tev:Timeout><tev:MessageLimit>1</tev:MessageLimit>")
            XCTAssertEqual(gone.fault, "wsrf-rw:ResourceUnknownFault")
            let badTerm = try await client.soap(
                "events_service", "tev:CreatePullPointSubscription", ns: ONVIFNamespace.events,
                body: "<tev:InitialTerminationTime>soon</tev:InitialTerminationTime>")
            XCTAssertEqual(badTerm.fault, "ter:InvalidArgVal")
        }
    }

    func testAPullPointSubscriptionOverHTTP() async throws {
        let web = try harness()
        try await web.test { client in
            let created = try await client.soap(
                "events_service", "tev:CreatePullPointSubscription", ns: ONVIFNamespace.events,
                body: "<tev:InitialTerminationTime>PT60S</tev:InitialTerminationTime>")
            let address = try XCTUnwrap(created.operation?.value("SubscriptionReference", "Address"))
            XCTAssertTrue(address.hasPrefix("http://localhost/onvif/pullpoint/"), address)
            let path = String(address.dropFirst("http://localhost/onvif/".count))
            web.context.onvif?.subscriptions.publish(
                ONVIFNotification(property: .motion, value: true, time: Date(), operation: .changed))
            let pulled = try await client.soap(
                path, "tev:PullMessages", ns: ONVIFNamespace.events,
                body: "<tev:Timeout>PT1S</tev:Timeout><tev:MessageLimit>10</tev:MessageLimit>")
            let messages = pulled.operation?.children.filter { $0.name == "NotificationMessage" } ?? []
            XCTAssertEqual(messages.last?.value("Topic"), "tns1:RuleEngine/CellMotionDetector/Motion")
            let data = messages.last?.child("Message")?.child("Message")?.child("Data")?.child("SimpleItem")
            XCTAssertEqual([data?.attribute("Name"), data?.attribute("Value")], ["IsMotion", "true"])
            let renewed = try await client.soap(
                path, "wsnt:Renew", ns: ONVIFNamespace.notification,
                body: "<wsnt:TerminationTime>PT600S</wsnt:TerminationTime>")
            XCTAssertNotNil(renewed.operation?.value("TerminationTime").flatMap(ONVIFTime.date))
            let unsubscribed = try await client.soap(path, "wsnt:Unsubscribe", ns: ONVIFNamespace.notification)
            XCTAssertEqual(unsubscribed.status, .ok)
            let again = try await client.soap(path, "wsnt:Unsubscribe", ns: ONVIFNamespace.notification)
            XCTAssertEqual(again.fault, "wsrf-rw:ResourceUnknownFault")
        }
    }

    func testTheSnapshotTakesBasicAuthentication() async throws {
        let web = try harness()
        try await web.test { client in
            let refused = try await client.request("/live.jpg", auth: false)
            XCTAssertEqual(refused.status, .unauthorized)
            XCTAssertEqual(refused.header("WWW-Authenticate"), "Basic realm=\"appliance\"")
            let wrong = Data("appliance:nope".utf8).base64EncodedString()
            let wrongAnswer = try await client.request(
                "/live.jpg", headers: ["Authorization: Basic \(wrong)"], auth: false)
            XCTAssertEqual(wrongAnswer.status, .unauthorized)
            let otherUser = Data("admin:\(WebHarness.password)".utf8).base64EncodedString()
            let otherAnswer = try await client.request(
                "/live.jpg", headers: ["Authorization: Basic \(otherUser)"], auth: false)
            XCTAssertEqual(otherAnswer.status, .unauthorized)
            web.live.receive(jpeg: [0xFF, 0xD8, 0xFF, 0xD9], ageNanoseconds: 0)
            let right = Data("appliance:\(WebHarness.password)".utf8).base64EncodedString()
            let picture = try await client.request("/live.jpg", headers: ["Authorization: Basic \(right)"], auth: false)
            XCTAssertEqual(picture.status, .ok)
            XCTAssertEqual(picture.header("Content-Type"), "image/jpeg")
            XCTAssertEqual(Array(picture.data), [0xFF, 0xD8, 0xFF, 0xD9])
        }
    }

    func testWithoutAPasswordTokensAreNotAskedFor() async throws {
        try await harness(password: false).test { client in
            let local = try await client.soap(
                "device_service", "tds:GetDeviceInformation", ns: ONVIFNamespace.device, token: .none)
            XCTAssertEqual(local.status, .ok, "no password (loopback only): no token needed")
            let signed = try await client.soap(
                "device_service", "tds:GetDeviceInformation", ns: ONVIFNamespace.device, token: .wrongPassword)
            XCTAssertEqual(signed.status, .ok, "a client's token is ignored (Home Assistant always sends one)")
        }
    }
}

/// A request's WS-Security header, as a client would sign it.
enum SOAPToken {
    case none, valid, wrongPassword, stale

    func header() -> String {
        let (password, created): (String, Date) =
            switch self {
            case .none: ("", Date())
            case .valid: (WebHarness.password, Date())
            case .wrongPassword: ("wrong", Date())
            case .stale: (WebHarness.password, Date().addingTimeInterval(-600))
            }
        if case .none = self { return "" }
        let nonce = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
        let createdText = ONVIFTime.string(created)
        return """
            <s:Header><wsse:Security xmlns:wsse="\(ONVIFNamespace.security)" \
            xmlns:wsu="\(ONVIFNamespace.securityUtility)"><wsse:UsernameToken>\
            <wsse:Username>appliance</wsse:Username><wsse:Password Type="\(UsernameToken.digestType)">\
            \(UsernameToken.digest(nonce: nonce, created: createdText, password: password))</wsse:Password>\
            <wsse:Nonce>\(nonce.base64EncodedString())</wsse:Nonce><wsu:Created>\(createdText)</wsu:Created></\
            wsse:UsernameToken></wsse:Security></s:Header>
            """
    }
}

/// A SOAP reply, read with the product's parser.
struct SOAPAnswer {
    let status: HTTPResponse.Status
    let envelope: XMLTree?

    init(_ response: TestResponse) {
        status = response.status
        envelope = try? XMLTree.parse(response.data)
    }

    var operation: XMLTree? { envelope?.child("Body", in: ONVIFNamespace.soap)?.children.first }
    var fault: String? { operation?.name == "Fault" ? operation?.value("Code", "Subcode", "Value") : nil }
    var reason: String { operation?.value("Reason", "Text") ?? "" }
}

extension TestClientProtocol {
    /// POSTs `operation` (prefix:Name in `ns`) with `body` inside it to `/onvif/<path>`, signed as `token` says.
    func soap(
        _ path: String, _ operation: String, ns: String, body: String = "", token: SOAPToken = .valid,
        header: String? = nil
    ) async throws -> SOAPAnswer {
        let prefix = operation.split(separator: ":")[0]
        let envelope = """
            <?xml version="1.0" encoding="utf-8"?><s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope" \
            xmlns:\(prefix)="\(ns)">\(header ?? token.header())<s:Body><\(operation)>\(body)</\(operation)></s:Body></\
            s:Envelope>
            """
        var headers = HTTPFields()
        headers[.contentType] = "application/soap+xml; charset=utf-8"
        return SOAPAnswer(
            try await execute(
                uri: "/onvif/\(path)", method: .post, headers: headers, body: ByteBuffer(string: envelope)))
    }
}
