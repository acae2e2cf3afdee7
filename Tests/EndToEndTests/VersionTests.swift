import ApplianceProtocol
import Foundation
import XCTest

/// `version`, the command added to show what adding one takes (its case, its handler, its ctl verb, its docs): the
/// same answer over the socket, from `ctl` (text and JSON) and from the web API.
final class VersionTests: XCTestCase {
    func testVersionOverTheSocketCtlAndWeb() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }

        guard case .version(let info) = try daemon.perform(.version) else {
            return XCTFail("version: another kind of answer")
        }
        XCTAssertEqual(info.version, ApplianceVersion.current)
        XCTAssertFalse(info.gstreamer.isEmpty)
        XCTAssertTrue(info.gstreamer.first?.isNumber == true, "a bare version number: \(info.gstreamer)")

        let text = try daemon.ctl(["version"])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertEqual(text.stdout, "appliance \(info.version) (GStreamer \(info.gstreamer))\n")
        let json = try daemon.ctl(["--json", "version"])
        XCTAssertEqual(json.status, 0, json.stderr)
        XCTAssertEqual(try WireFormat.decoder.decode(VersionInfo.self, from: Data(json.stdout.utf8)), info)

        let refused = try daemon.ctl(["version", "--title", "x"])
        XCTAssertNotEqual(refused.status, 0, "an option version does not take is refused")

        // Loopback without a token: the page's session carries the CSRF token every write needs.
        let url = try daemon.webURL()
        let session = try WireFormat.decoder.decode(
            [String: String].self, from: try Curl.request(url + "/api/session").body)
        let csrf = try XCTUnwrap(session["csrf"])
        let web = try Curl.request(url + "/api/commands/version", method: "POST", headers: ["X-CSRF-Token: \(csrf)"])
        XCTAssertEqual(web.status, 200, web.text)
        XCTAssertEqual(try WireFormat.decoder.decode(VersionInfo.self, from: web.body), info)
    }
}
