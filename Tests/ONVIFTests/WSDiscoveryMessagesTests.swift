import ApplianceBase
import Foundation
import NIOCore
import XCTest

@testable import ONVIF

/// WS-Discovery's matching and messages: which Probes are this device's (types, scopes by prefix, strcmp0), Resolve
/// by endpoint, one answer per message id, and replies that carry what NVRs and Home Assistant read.
final class WSDiscoveryMessagesTests: XCTestCase {
    static let ours = [
        "onvif://www.onvif.org/Profile/Streaming", "onvif://www.onvif.org/name/front%20door",
        "onvif://www.onvif.org/hardware/appliance", "onvif://www.onvif.org/mac/02:00:00:00:00:01",
    ]

    func testWhichProbesMatch() {
        let m = { (types: [String], scopes: [String], by: String?) in
            WSDiscoveryMessages.matches(types: types, scopes: scopes, matchBy: by, ours: Self.ours)
        }
        XCTAssertTrue(m([], [], nil), "an empty probe asks for everyone")
        XCTAssertTrue(m(["dn:NetworkVideoTransmitter"], [], nil))
        XCTAssertTrue(m(["ns7:Device"], [], nil), "types by local name, whatever the prefix")
        XCTAssertFalse(m(["dp0:Printer"], [], nil))
        XCTAssertTrue(m([], ["onvif://www.onvif.org/Profile/Streaming"], nil))
        XCTAssertTrue(m([], ["onvif://www.onvif.org/Profile"], nil), "a prefix at a / boundary")
        XCTAssertTrue(m([], ["ONVIF://www.onvif.org/profile/streaming/"], nil))
        XCTAssertFalse(m([], ["onvif://www.onvif.org/Prof"], nil), "not within a segment")
        XCTAssertFalse(
            m([], ["onvif://www.onvif.org/Profile/Streaming", "onvif://www.onvif.org/location/kitchen"], nil),
            "every scope")
        XCTAssertFalse(
            m([], ["onvif://www.onvif.org/Profile"], "http://schemas.xmlsoap.org/ws/2005/04/discovery/strcmp0"))
        XCTAssertTrue(
            m(
                [], ["onvif://www.onvif.org/Profile/Streaming"],
                "http://schemas.xmlsoap.org/ws/2005/04/discovery/strcmp0"))
        XCTAssertFalse(
            m([], ["onvif://www.onvif.org/Profile"], "http://schemas.xmlsoap.org/ws/2005/04/discovery/ldap"),
            "an unknown rule")
    }

    func testAProbeIsAnsweredOnceWithTheDeviceOnTheAskersNetwork() throws {
        let messages = WSDiscoveryMessages(endpoint: "urn:uuid:6e5b0c2a-0000-5000-8000-000000000001", instance: 42)
        let lan = NetworkInterface(
            name: "eth0", index: 2, mac: "02:00:00:00:00:01", address: "192.168.1.10", prefixLength: 24,
            isUp: true, isLoopback: false, canMulticast: true)
        let other = NetworkInterface(
            name: "eth1", index: 3, mac: "02:00:00:00:00:02", address: "10.0.0.5", prefixLength: 8,
            isUp: true, isLoopback: false, canMulticast: true)
        let responder = DiscoveryResponder(
            messages: messages, scopes: Self.ours, interfaces: [lan, other], webHost: "0.0.0.0", webPort: 8080)
        let probe = Self.probe(id: "urn:uuid:1", scopes: "onvif://www.onvif.org/Profile/Streaming")
        let asker = try SocketAddress(ipAddress: "10.1.2.3", port: 40000)
        let (reply, to) = try XCTUnwrap(
            responder.reply(to: AddressedEnvelope(remoteAddress: asker, data: ByteBuffer(string: probe))))
        XCTAssertEqual(to, asker, "unicast to the asker")
        XCTAssertNil(
            responder.reply(to: AddressedEnvelope(remoteAddress: asker, data: ByteBuffer(string: probe))),
            "a repeat is not answered")

        let envelope = try XMLTree.parse(reply)
        let header = try XCTUnwrap(envelope.child("Header"))
        XCTAssertEqual(header.value("Action"), "http://schemas.xmlsoap.org/ws/2005/04/discovery/ProbeMatches")
        XCTAssertEqual(header.value("RelatesTo"), "urn:uuid:1")
        XCTAssertEqual(header.child("AppSequence")?.attribute("InstanceId"), "42")
        let match = try XCTUnwrap(envelope.child("Body")?.child("ProbeMatches")?.child("ProbeMatch"))
        XCTAssertEqual(match.child("ProbeMatches")?.namespace ?? match.namespace, ONVIFNamespace.discovery)
        XCTAssertEqual(match.value("EndpointReference", "Address"), messages.endpoint)
        XCTAssertEqual(match.value("Types"), "dn:NetworkVideoTransmitter tds:Device")
        XCTAssertEqual(match.value("Scopes")?.split(separator: " ").map(String.init), Self.ours)
        XCTAssertEqual(
            match.value("XAddrs"), "http://10.0.0.5:8080/onvif/device_service", "the interface in the asker's subnet")
        XCTAssertEqual(match.value("MetadataVersion"), "1")

        let elsewhere = AddressedEnvelope(
            remoteAddress: asker, data: ByteBuffer(string: Self.probe(id: "urn:uuid:9", scopes: "")),
            metadata: .init(
                ecnState: .transportNotCapable,
                packetInfo: NIOPacketInfo(destinationAddress: asker, interfaceIndex: 7)))
        XCTAssertNil(responder.reply(to: elsewhere), "a probe that came in on an interface not allowed is not answered")
        let printer = Self.probe(id: "urn:uuid:2", scopes: "", types: "<d:Types xmlns:p=\"urn:p\">p:Printer</d:Types>")
        XCTAssertNil(responder.reply(to: AddressedEnvelope(remoteAddress: asker, data: ByteBuffer(string: printer))))
        XCTAssertNil(
            responder.reply(to: AddressedEnvelope(remoteAddress: asker, data: ByteBuffer(string: "<!DOCTYPE x><x/>"))))
        let resolve = Self.envelope(
            id: "urn:uuid:3", action: "Resolve",
            body: """
                <d:Resolve><a:EndpointReference><a:Address>\(messages.endpoint)</a:Address></a:EndpointReference></\
                d:Resolve>
                """)
        let resolved = try XMLTree.parse(
            try XCTUnwrap(
                responder.reply(to: AddressedEnvelope(remoteAddress: asker, data: ByteBuffer(string: resolve)))
            ).0)
        XCTAssertEqual(
            resolved.child("Body")?.child("ResolveMatches")?.child("ResolveMatch")?.value("XAddrs"),
            "http://10.0.0.5:8080/onvif/device_service")
    }

    func testHelloAndByeAndAFixedWebAddress() throws {
        let messages = WSDiscoveryMessages(endpoint: "urn:uuid:x", instance: 1)
        let lan = NetworkInterface(
            name: "eth0", index: 2, mac: nil, address: "192.168.1.10", prefixLength: 24, isUp: true, isLoopback: false,
            canMulticast: true)
        let responder = DiscoveryResponder(
            messages: messages, scopes: Self.ours, interfaces: [lan], webHost: "192.168.1.10", webPort: 80)
        let hello = try XMLTree.parse(responder.hello(on: lan))
        XCTAssertEqual(hello.child("Header")?.value("Action"), "http://schemas.xmlsoap.org/ws/2005/04/discovery/Hello")
        XCTAssertEqual(hello.child("Header")?.value("To"), "urn:schemas-xmlsoap-org:ws:2005:04:discovery")
        XCTAssertEqual(
            hello.child("Body")?.child("Hello")?.value("XAddrs"), "http://192.168.1.10:80/onvif/device_service")
        let bye = try XMLTree.parse(responder.bye())
        XCTAssertEqual(bye.child("Body")?.child("Bye")?.value("EndpointReference", "Address"), "urn:uuid:x")
        XCTAssertEqual(bye.child("Header")?.child("AppSequence")?.attribute("MessageNumber"), "2", "numbered in order")
    }

    static func probe(id: String, scopes: String, types: String = "") -> String {
        envelope(id: id, action: "Probe", body: "<d:Probe>\(types)<d:Scopes>\(scopes)</d:Scopes></d:Probe>")
    }

    static func envelope(id: String, action: String, body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <s:Envelope xmlns:a="http://schemas.xmlsoap.org/ws/2004/08/addressing" \
        xmlns:d="http://schemas.xmlsoap.org/ws/2005/04/discovery" \
        xmlns:s="http://www.w3.org/2003/05/soap-envelope">
          <s:Header><a:Action>http://schemas.xmlsoap.org/ws/2005/04/discovery/\(action)</a:Action><a:MessageID>\(id)</\
        a:MessageID>
          <a:To>urn:schemas-xmlsoap-org:ws:2005:04:discovery</a:To></s:Header>
          <s:Body>\(body)</s:Body>
        </s:Envelope>
        """
    }
}
