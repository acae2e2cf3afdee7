import ApplianceBase
import Foundation
import TestSupport
import XCTest

@testable import ONVIF

/// SOAP as ONVIF clients send it is read by namespace, whatever the prefixes; hostile and broken XML is refused
/// before it costs anything: no DTD (entity expansion, external entities), bounded size, element count and depth.
final class SOAPParsingTests: XCTestCase {
    func testElementsAreFoundByNamespaceWhateverThePrefix() throws {
        let text = """
            <?xml version="1.0"?><s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope">
            <s:Body><ns0:GetStreamUri xmlns:ns0="http://www.onvif.org/ver10/media/wsdl" \
            xmlns:ns1="http://www.onvif.org/ver10/schema">
            <ns0:StreamSetup><ns1:Stream>RTP-Unicast</ns1:Stream></ns0:StreamSetup><ns0:ProfileToken> main \
            </ns0:ProfileToken>
            </ns0:GetStreamUri></s:Body></s:Envelope>
            """
        let envelope = try XMLTree.parse(Data(text.utf8))
        XCTAssertEqual([envelope.namespace, envelope.name], [ONVIFNamespace.soap, "Envelope"])
        let operation = try XCTUnwrap(envelope.child("Body", in: ONVIFNamespace.soap)?.children.first)
        XCTAssertEqual([operation.namespace, operation.name], [ONVIFNamespace.media, "GetStreamUri"])
        XCTAssertEqual(operation.value("ProfileToken"), "main")
        XCTAssertEqual(operation.value("StreamSetup", "Stream"), "RTP-Unicast")
        XCTAssertNil(
            operation.child("ProfileToken", in: ONVIFNamespace.schema),
            "a name in another namespace is not the same element")
    }

    func testHostileAndBrokenDocumentsAreRefused() {
        let laughs =
            """
            <?xml version=\"1.0\"?><!DOCTYPE l [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \
            \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">]><l>&b;</l>
            """
        let external = "<?xml version=\"1.0\"?><!DOCTYPE a [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><a>&x;</a>"
        let deep = String(repeating: "<a>", count: 40) + String(repeating: "</a>", count: 40)
        let wide = "<a>" + String(repeating: "<b/>", count: 2_500) + "</a>"
        let big = "<a>" + String(repeating: "x", count: 70_000) + "</a>"
        let cases: [(String, String)] = [
            (laughs, "document type declarations are not allowed"),
            (external, "document type declarations are not allowed"),
            (deep, "nested deeper than 32"), (wide, "more than 2000 elements"), (big, "larger than 65536 bytes"),
            ("<a><b></a>", "malformed XML"), ("", "malformed XML"), ("not xml at all", "malformed XML"),
        ]
        for (text, reason) in cases {
            XCTAssertThrowsError(try XMLTree.parse(Data(text.utf8)), "\(text.prefix(40))") { error in
                XCTAssertTrue("\(error)".contains(reason), "\(error) should say \(reason)")
            }
        }
    }

    /// Random mutations of a real request, with the tokens that broke Foundation's parser (an unbound prefix, bytes
    /// that are not UTF-8, another encoding declared): each is read or refused, none traps. APPLIANCE_XML_FUZZ sets
    /// the count (20,000 by default; 1,000,000 were run by hand), APPLIANCE_XML_SEED replays a run.
    func testMutatedRequestsNeverTrap() {
        let seed = SeededRandom.seed(from: "APPLIANCE_XML_SEED")
        var random = SeededRandom(seed: seed)
        let original = Array(
            """
            <?xml version="1.0" encoding="utf-8"?><s:Envelope \
            xmlns:s="http://www.w3.org/2003/05/soap-envelope"><s:Body>\
            <tds:GetDeviceInformation xmlns:tds="http://www.onvif.org/ver10/device/wsdl" \
            a="1">x</tds:GetDeviceInformation></s:Body></s:Envelope>
            """.utf8)
        let words = [
            " encoding=\"ISO-8859-1\"", " encoding=\"UTF-16\"", "é", "\u{10FFFF}", " xmlns:x=\"\"", "&#0;", "&#xD800;",
            "]]>",
            "<?pi x?>", "<!--", ":", " xmlns=\"\"", " xmlns:tds=\"\"", "x:y:z", "&unknown;", " a=\"1\" a=\"2\"",
            "\u{FEFF}", "<![CDATA[&<>\"]]>",
        ]
        let rounds = ProcessInfo.processInfo.environment["APPLIANCE_XML_FUZZ"].flatMap(Int.init) ?? 20_000
        var read = 0
        for _ in 0..<rounds {
            let bytes = random.mutated(original, insertions: words.map { Array($0.utf8) })
            if (try? XMLTree.parse(Data(bytes))) != nil { read += 1 }
        }
        XCTAssertGreaterThan(read, 0, "seed \(seed): some mutations are still XML")
        XCTAssertLessThan(read, rounds, "seed \(seed): most are not")
    }

    func testUnboundPrefixesAndForeignBytesAreNotElementsOfANamespace() throws {
        let unbound = try XMLTree.parse(Data("<s:Envelope xmCns:s=\"x\"><s:Body/></s:Envelope>".utf8))
        XCTAssertEqual(unbound.namespace, "", "an unbound prefix is no namespace")
        XCTAssertThrowsError(
            try XMLTree.parse(Data([0x3C, 0x61, 0xCD, 0x66, 0x3E, 0x3C, 0x2F, 0x61, 0xCD, 0x66, 0x3E]))
        ) {
            XCTAssertTrue("\($0)".contains("not UTF-8"))
        }
    }

    func testAFaultIsASOAP12EnvelopeWithCodeSubcodeAndReason() throws {
        let fault = SOAPFault.notImplemented("GetPresets")
        let parsed = try XMLTree.parse(fault.envelope)
        let body = try XCTUnwrap(parsed.child("Body", in: ONVIFNamespace.soap)?.child("Fault", in: ONVIFNamespace.soap))
        XCTAssertEqual(body.value("Code", "Value"), "env:Receiver")
        XCTAssertEqual(body.value("Code", "Subcode", "Value"), "ter:ActionNotSupported")
        XCTAssertEqual(body.value("Reason", "Text"), "GetPresets is not implemented by this device")
        XCTAssertEqual(fault.httpStatus, 500)
        XCTAssertEqual(SOAPFault.notAuthorized("x").httpStatus, 400)
    }

    func testTextIsEscapedByTheWriter() throws {
        let data = XMLWriter.envelope(body: [
            XMLWriter.element("tt:Name", "a<b & \"c\" ]]>", attributes: [("token", "x\"<y")])
        ])
        let parsed = try XMLTree.parse(data)
        let name = try XCTUnwrap(parsed.child("Body")?.children.first)
        XCTAssertEqual(
            [name.namespace, name.text, name.attribute("token")], [ONVIFNamespace.schema, "a<b & \"c\" ]]>", "x\"<y"])
    }

    func testDurationsAndTimes() {
        XCTAssertEqual(ONVIFTime.seconds("PT600S"), 600)
        XCTAssertEqual(ONVIFTime.seconds("PT1M"), 60)
        XCTAssertEqual(ONVIFTime.seconds("PT1H2M3.5S"), 3723.5)
        XCTAssertEqual(ONVIFTime.seconds("P1DT1S"), 86401)
        for bad in ["600", "PT", "P1Y", "PTS", "PT1D", "-PT1S", "PT1M2"] { XCTAssertNil(ONVIFTime.seconds(bad), bad) }
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        XCTAssertEqual(ONVIFTime.termination("PT10M", now: now), now.addingTimeInterval(600))
        XCTAssertEqual(
            ONVIFTime.termination("2027-01-15T08:00:00Z", now: now), ONVIFTime.date("2027-01-15T08:00:00+00:00"))
        XCTAssertEqual(
            ONVIFTime.date("2027-01-15T08:00:00.123456Z")?.timeIntervalSince1970 ?? 0, 1_800_000_000.123,
            accuracy: 0.001)
        XCTAssertEqual(ONVIFTime.string(now), "2027-01-15T08:00:00Z")
    }
}
