import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// Bad SOAP sent to the real daemon: hostile XML (entity expansion, an external entity), garbage, an oversized body,
/// an unknown operation and random mutations of a real request each get a SOAP fault (or 413), a page that is not
/// this machine's gets 403 without a password (DNS rebinding), and the daemon records on.
final class ONVIFBadInputTests: XCTestCase {
    static let request = """
        <?xml version="1.0" encoding="utf-8"?><s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope">\
        <s:Body><tds:GetDeviceInformation xmlns:tds="http://www.onvif.org/ver10/device/wsdl"/></s:Body></s:Envelope>
        """

    func testBadSOAPGetsAFaultAndTheDaemonRecordsOn() throws {
        let (webPort, rtspPort) = (FreePort.pick(), FreePort.pick())
        let daemon = try DaemonProcess(
            extra: """
                [web]
                listen = "127.0.0.1:\(webPort)"
                [rtsp]
                listen = "127.0.0.1:\(rtspPort)"
                [onvif]
                enabled = true
                listen = "off"
                """)
        try daemon.start()
        defer { daemon.stop() }
        let url = "http://127.0.0.1:\(webPort)/onvif/device_service"
        let soap = { (body: Data, headers: [String]) in
            try Curl.request(url, method: "POST", headers: ["Content-Type: application/soap+xml"] + headers, body: body)
        }
        let fine = try soap(Data(Self.request.utf8), [])
        XCTAssertEqual(fine.status, 200, "no password on loopback: no token needed")
        XCTAssertTrue(fine.text.contains("<tds:Manufacturer>appliance</tds:Manufacturer>"), fine.text)
        XCTAssertEqual(
            try soap(Data(Self.request.utf8), ["Host: evil.example"]).status, 403, "a rebound name is refused")

        let hostile: [(String, String)] = [
            (
                """
                <?xml version=\"1.0\"?><!DOCTYPE l [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \
                \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">
                """
                    + """
                    <!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\"><!ENTITY d \
                    \"&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;\">]><l>&d;&d;&d;&d;</l>
                    """,
                "ter:WellFormed"
            ),
            (
                "<?xml version=\"1.0\"?><!DOCTYPE a [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><a>&x;</a>",
                "ter:WellFormed"
            ),
            ("\u{0}\u{1}garbage\u{FFFD}", "ter:WellFormed"),
            (
                Self.request.replacingOccurrences(of: "GetDeviceInformation", with: "SystemReboot"),
                "ter:ActionNotSupported"
            ),
        ]
        for (body, subcode) in hostile {
            let answer = try soap(Data(body.utf8), [])
            XCTAssertTrue([400, 500].contains(answer.status), "\(body.prefix(30)): \(answer.status)")
            XCTAssertEqual(answer.header("Content-Type"), "application/soap+xml; charset=utf-8")
            XCTAssertTrue(answer.text.contains("<env:Value>\(subcode)</env:Value>"), answer.text)
            XCTAssertFalse(answer.text.contains("root:"), "no file's content comes back")
        }
        XCTAssertEqual(try soap(Data(repeating: 0x41, count: 70_000), []).status, 413, "over 64 KiB")

        let seed = SeededRandom.seed(from: "APPLIANCE_SOAP_SEED")
        var random = SeededRandom(seed: seed)
        let original = Array(Self.request.utf8)
        let cdata = Array("<![CDATA[&<>\"]]>".utf8)
        let insertions = (1...cdata.count).map { Array(cdata.prefix($0)) }
        for round in 0..<150 {
            let bytes = random.mutated(original, insertions: insertions)
            let answer = try soap(Data(bytes), [])
            let envelope =
                answer.text.contains("<env:Envelope")
                && answer.header("Content-Type")?.hasPrefix("application/soap+xml") == true
            XCTAssertTrue(
                envelope && [200, 400, 500].contains(answer.status),
                "seed \(seed) round \(round): \(answer.status) \(answer.text.prefix(200))")
        }
        XCTAssertTrue(daemon.isRunning, "seed \(seed)")
        _ = try daemon.recordStart()
        try daemon.waitUntilRecorded(1)
        let clip = try daemon.recordStop()
        XCTAssertTrue(FileManager.default.fileExists(atPath: clip.path))
    }
}

/// Before the first account (and with no token_file) ONVIF answers only this machine, judged by the peer's address
/// as the dashboard judges it: a host on the network that names `localhost` in its Host header is refused (it used
/// to be let in on the Host header alone), and this machine is answered without a token.
final class ONVIFPeerTests: XCTestCase {
    func testWithoutAPasswordAnotherHostIsRefusedWhateverHostItNames() throws {
        let net = try VethNetwork()
        defer { net.remove() }
        let daemon = try DaemonProcess(
            extra: """
                [web]
                listen = "0.0.0.0:0"
                [rtsp]
                listen = "127.0.0.1:0"
                [onvif]
                enabled = true
                listen = "off"
                """)
        try daemon.start()
        defer { daemon.stop() }
        let port = try XCTUnwrap(URL(string: try daemon.webURL())?.port)
        let body = ONVIFBadInputTests.request
        let here = try Curl.request(
            "https://127.0.0.1:\(port)/onvif/device_service", method: "POST",
            headers: ["Content-Type: application/soap+xml"],
            body: Data(body.utf8), caFile: daemon.dataDir + "/tls/device.crt")
        XCTAssertEqual(here.status, 200, "this machine, no token: \(here.text.prefix(300))")
        for host in ["localhost", "127.0.0.1", "localhost:\(port)"] {
            let status = try ProcessOutcome.run(
                "/usr/sbin/ip",
                [
                    "netns", "exec", net.namespace, Curl.path, "-sk", "-o", "/dev/null", "-w", "%{http_code}",
                    "-H", "Host: \(host)", "-H", "Content-Type: application/soap+xml", "--data-binary", body,
                    "https://\(net.deviceAddress):\(port)/onvif/device_service",
                ], timeout: 30
            ).stdout
            XCTAssertEqual(status, "403", "another host naming \(host)")
        }
        XCTAssertTrue(daemon.isRunning)
    }
}
