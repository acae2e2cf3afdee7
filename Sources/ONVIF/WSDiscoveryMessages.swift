import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// WS-Discovery (2005/04, as ONVIF uses it) for one device: which Probes and Resolves it answers, and the Hello,
/// Bye, ProbeMatches and ResolveMatches it sends. Types `dn:NetworkVideoTransmitter tds:Device`; scopes from
/// `ONVIFFacts.scopes`.
package struct WSDiscoveryMessages {
    /// `urn:uuid:…`, the same across restarts (NVRs key the device on it).
    package let endpoint: String
    /// Seconds since 1970 at start: a restart is a new instance, so peers drop what they cached.
    package let instance: Int

    package init(endpoint: String, instance: Int) {
        self.endpoint = endpoint
        self.instance = instance
    }
    package static let types = "dn:NetworkVideoTransmitter tds:Device"
    package static let action = "http://schemas.xmlsoap.org/ws/2005/04/discovery/"
    static let multicastTo = "urn:schemas-xmlsoap-org:ws:2005:04:discovery"
    package static let anonymous = "http://schemas.xmlsoap.org/ws/2004/08/addressing/role/anonymous"

    /// A request that came in.
    package enum Request: Equatable {
        case probe(messageID: String, types: [String], scopes: [String], matchBy: String?)
        case resolve(messageID: String, endpoint: String)
    }

    package static func parse(_ data: Data) -> Request? {
        guard let envelope = try? XMLTree.parse(data), envelope.namespace == ONVIFNamespace.soap,
            let header = envelope.child("Header", in: ONVIFNamespace.soap),
            let body = envelope.child("Body", in: ONVIFNamespace.soap),
            let messageID = header.value("MessageID"), !messageID.isEmpty, let request = body.children.first,
            request.namespace == ONVIFNamespace.discovery
        else { return nil }
        switch request.name {
        case "Probe":
            let words = { (name: String) in
                (request.value(name) ?? "").split(whereSeparator: \.isWhitespace).map(String.init)
            }
            return .probe(
                messageID: messageID, types: words("Types"), scopes: words("Scopes"),
                matchBy: request.child("Scopes")?.attribute("MatchBy"))
        case "Resolve":
            guard let address = request.child("EndpointReference")?.value("Address") else { return nil }
            return .resolve(messageID: messageID, endpoint: address)
        default: return nil
        }
    }

    /// Whether a Probe asks for this device: no types or one of ours (by local name; prefixes are the sender's),
    /// and every scope a prefix of one of ours at a `/` boundary (RFC 3986 matching, WS-Discovery's default).
    package static func matches(types: [String], scopes: [String], matchBy: String?, ours: [String]) -> Bool {
        let typeNames = types.map { $0.split(separator: ":").last.map(String.init) ?? $0 }
        guard typeNames.isEmpty || typeNames.contains(where: { ["NetworkVideoTransmitter", "Device"].contains($0) })
        else { return false }
        if let matchBy, !matchBy.hasSuffix("/rfc3986"), !matchBy.hasSuffix("/strcmp0") { return false }
        let exact = matchBy?.hasSuffix("/strcmp0") == true
        return scopes.allSatisfy { wanted in
            ours.contains { scope in
                if exact { return scope == wanted }
                let w = wanted.hasSuffix("/") ? String(wanted.dropLast()) : wanted
                return scope.lowercased() == w.lowercased() || scope.lowercased().hasPrefix(w.lowercased() + "/")
            }
        }
    }

    func probeMatches(relatesTo: String, scopes: [String], xaddrs: String, number: Int) -> Data {
        reply(
            "ProbeMatches", relatesTo: relatesTo, number: number,
            body: XMLWriter.element(
                "d:ProbeMatches",
                [
                    XMLWriter.element("d:ProbeMatch", description(scopes: scopes, xaddrs: xaddrs))
                ]))
    }

    func resolveMatches(relatesTo: String, scopes: [String], xaddrs: String, number: Int) -> Data {
        reply(
            "ResolveMatches", relatesTo: relatesTo, number: number,
            body: XMLWriter.element(
                "d:ResolveMatches",
                [
                    XMLWriter.element("d:ResolveMatch", description(scopes: scopes, xaddrs: xaddrs))
                ]))
    }

    package func hello(scopes: [String], xaddrs: String, number: Int) -> Data {
        announcement(
            "Hello", number: number, body: XMLWriter.element("d:Hello", description(scopes: scopes, xaddrs: xaddrs)))
    }

    package func bye(number: Int) -> Data {
        announcement("Bye", number: number, body: XMLWriter.element("d:Bye", [endpointReference()]))
    }

    private func description(scopes: [String], xaddrs: String) -> [XMLElement] {
        [
            endpointReference(), XMLWriter.element("d:Types", Self.types),
            XMLWriter.element("d:Scopes", scopes.joined(separator: " ")),
            XMLWriter.element("d:XAddrs", xaddrs), XMLWriter.element("d:MetadataVersion", "1"),
        ]
    }

    private func endpointReference() -> XMLElement {
        XMLWriter.element("a:EndpointReference", [XMLWriter.element("a:Address", endpoint)])
    }

    private func reply(_ action: String, relatesTo: String, number: Int, body: XMLElement) -> Data {
        XMLWriter.envelope(
            prefix: "s",
            header: [
                XMLWriter.element("a:MessageID", "urn:uuid:\(UUID().uuidString.lowercased())"),
                XMLWriter.element("a:RelatesTo", relatesTo),
                XMLWriter.element("a:To", Self.anonymous), XMLWriter.element("a:Action", Self.action + action),
                appSequence(number),
            ], body: [body], prefixes: ONVIFNamespace.discoveryPrefixes)
    }

    private func announcement(_ action: String, number: Int, body: XMLElement) -> Data {
        XMLWriter.envelope(
            prefix: "s",
            header: [
                XMLWriter.element("a:MessageID", "urn:uuid:\(UUID().uuidString.lowercased())"),
                XMLWriter.element("a:To", Self.multicastTo),
                XMLWriter.element("a:Action", Self.action + action), appSequence(number),
            ], body: [body], prefixes: ONVIFNamespace.discoveryPrefixes)
    }

    private func appSequence(_ number: Int) -> XMLElement {
        XMLWriter.element("d:AppSequence", attributes: [("InstanceId", "\(instance)"), ("MessageNumber", "\(number)")])
    }
}
