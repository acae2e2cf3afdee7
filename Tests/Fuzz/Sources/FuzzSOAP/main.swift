import Foundation

@testable import ONVIF

/// libFuzzer's entry: the bytes are a request body a peer POSTed to the ONVIF services (or a WS-Discovery datagram),
/// read as `ONVIFDevice.respond` reads one: XMLTree over libxml2, the envelope's Body and Header, the UsernameToken
/// (PasswordText and PasswordDigest) and its check, and the values operations read from a request (durations and
/// times of subscriptions, a message limit); a Probe is matched against scopes as the discovery service does.
/// Refusals are expected; a trap is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    if case .probe(_, let types, let scopes, let matchBy)? = WSDiscoveryMessages.parse(bytes) {
        _ = WSDiscoveryMessages.matches(types: types, scopes: scopes, matchBy: matchBy, ours: Fixed.scopes)
    }
    guard let envelope = try? XMLTree.parse(bytes) else { return 0 }
    if let operation = envelope.child("Body", in: ONVIFNamespace.soap)?.children.first {
        for name in ["Timeout", "InitialTerminationTime", "TerminationTime"] {
            guard let text = operation.value(name) else { continue }
            _ = ONVIFTime.termination(text, now: Fixed.now)
        }
        _ = Int(operation.value("MessageLimit") ?? "")
        _ = (operation.value("ProfileToken"), operation.attribute("Type"))
    }
    let header = envelope.child("Header", in: ONVIFNamespace.soap)
    _ = try? UsernameToken.plain(header: header)
    if let token = try? UsernameToken.from(header: header) {
        _ = try? UsernameTokenVerifier(user: "appliance", password: "secret").verify(token, now: Fixed.now)
    }
    return 0
}

/// What the harness compares with: fixed, so that an input means the same on every run.
enum Fixed {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)
    static let scopes = [
        "onvif://www.onvif.org/name/appliance", "onvif://www.onvif.org/hardware/x86_64",
        "onvif://www.onvif.org/type/video_encoder", "onvif://www.onvif.org/Profile/Streaming",
    ]
}
