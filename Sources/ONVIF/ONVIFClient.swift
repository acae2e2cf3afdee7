import ApplianceProtocol
import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore

/// The few ONVIF calls a recorder makes of a camera: the media service's address (GetCapabilities), its profiles
/// (GetProfiles) and each profile's RTSP address (GetStreamUri), signed with a WS-Security UsernameToken
/// (PasswordDigest, what cameras and Home Assistant use).
package enum ONVIFClient {
    static let timeout: TimeAmount = .seconds(5)

    /// `camera` with its streams, or with why they could not be had.
    package static func streams(of camera: DiscoveredCamera, user: String, password: String) async -> DiscoveredCamera {
        var result = camera
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            let account = (user, password)
            let capabilities = try await call(
                camera.address,
                body: """
                    <tds:GetCapabilities xmlns:tds="http://www.onvif.org/ver10/device/wsdl"><tds:Category>Media</\
                    tds:Category></tds:GetCapabilities>
                    """, account: account, http: http)
            guard let media = capabilities.value("GetCapabilitiesResponse", "Capabilities", "Media", "XAddr") else {
                throw ApplianceError(.unavailable, "it has no media service")
            }
            let profiles = try await call(
                media, body: #"<trt:GetProfiles xmlns:trt="http://www.onvif.org/ver10/media/wsdl"/>"#,
                account: account, http: http)
            for profile in profiles.child("GetProfilesResponse")?.children.filter({ $0.name == "Profiles" }) ?? [] {
                guard let token = profile.attribute("token") else { continue }
                let uri = try await call(media, body: streamURIRequest(token), account: account, http: http)
                guard let address = uri.value("GetStreamUriResponse", "MediaUri", "Uri") else { continue }
                result.streams.append(
                    DiscoveredStream(
                        profile: profile.value("Name") ?? token, uri: withoutCredentials(address),
                        encoding: profile.value("VideoEncoderConfiguration", "Encoding"),
                        width: profile.value("VideoEncoderConfiguration", "Resolution", "Width").flatMap { Int($0) },
                        height: profile.value("VideoEncoderConfiguration", "Resolution", "Height").flatMap { Int($0) }))
            }
        } catch let error as ApplianceError {
            result.error = error.message
        } catch {
            result.error = "\(error)"
        }
        try? await http.shutdown()
        return result
    }

    static func streamURIRequest(_ token: String) -> String {
        """
        <trt:GetStreamUri xmlns:trt="http://www.onvif.org/ver10/media/wsdl" \
        xmlns:tt="http://www.onvif.org/ver10/schema">\
        <trt:StreamSetup><tt:Stream>RTP-Unicast</tt:Stream><tt:Transport><tt:Protocol>RTSP</tt:Protocol></tt:Transport>\
        </trt:StreamSetup>\
        <trt:ProfileToken>\(escaped(token))</trt:ProfileToken></trt:GetStreamUri>
        """
    }

    /// A camera may put a user and password into the address it gives; the appliance keeps them apart (`url` may hold
    /// none), so they are dropped.
    static func withoutCredentials(_ address: String) -> String {
        guard var parts = URLComponents(string: address), parts.user != nil || parts.password != nil else {
            return address
        }
        (parts.user, parts.password) = (nil, nil)
        return parts.string ?? address
    }

    /// One SOAP 1.2 call: the response's Body, or the fault's reason as an error.
    static func call(_ url: String, body: String, account: (String, String), http: HTTPClient) async throws -> XMLTree {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/soap+xml; charset=utf-8")
        request.body = .bytes(ByteBuffer(string: envelope(body, account: account)))
        let response: HTTPClientResponse
        do {
            response = try await http.execute(request, timeout: timeout)
        } catch {
            throw ApplianceError(.unavailable, "no answer from \(url): \(error)")
        }
        let collected = try await response.body.collect(upTo: 1 << 20)
        let data = Data(collected.readableBytesView)
        var limits = XMLTree.Limits.soap  // a camera's profiles run to tens of kilobytes
        (limits.bytes, limits.elements) = (1 << 20, 20_000)
        guard let tree = try? XMLTree.parse(data, limits: limits), let body = tree.child("Body") else {
            throw ApplianceError(.unavailable, "\(url) answered HTTP \(response.status.code) without SOAP")
        }
        if let fault = body.child("Fault") {
            let reason = fault.value("Reason", "Text") ?? fault.value("Code", "Subcode", "Value") ?? "a fault"
            throw ApplianceError(.unavailable, "\(url) refused: \(reason)")
        }
        return body
    }

    /// The request, with a PasswordDigest token: Base64(SHA-1(nonce + created + password)).
    static func envelope(
        _ body: String, account: (user: String, password: String), now: Date = Date(),
        nonce: Data = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
    ) -> String {
        let created = ISO8601DateFormatter().string(from: now)
        let digest = UsernameToken.digest(nonce: nonce, created: created, password: account.password)
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope"><s:Header>\
            <wsse:Security s:mustUnderstand="1" \
            xmlns:wsse="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd" \
            xmlns:wsu="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd">\
            <wsse:UsernameToken>\
            <wsse:Username>\(escaped(account.user))</wsse:Username>\
            <wsse:Password Type="\(UsernameToken.digestType)">\(digest)</wsse:Password>\
            <wsse:Nonce EncodingType="http://docs.oasis-open.org/wss/2004/01/\
            oasis-200401-wss-soap-message-security-1.0#Base64Binary">\
            \(nonce.base64EncodedString())</wsse:Nonce><wsu:Created>\(created)</wsu:Created></wsse:UsernameToken></\
            wsse:Security>\
            </s:Header><s:Body>\(body)</s:Body></s:Envelope>
            """
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
