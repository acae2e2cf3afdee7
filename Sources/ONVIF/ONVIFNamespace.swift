/// The XML namespaces of ONVIF's services and of the standards under them, with the prefixes the appliance writes.
/// Requests are matched by namespace, never by prefix; replies use these prefixes, declared once on the envelope
/// (`tns1` must be spelled so: Home Assistant compares an event's topic as text).
public enum ONVIFNamespace {
    public static let soap = "http://www.w3.org/2003/05/soap-envelope"
    public static let device = "http://www.onvif.org/ver10/device/wsdl"
    public static let media = "http://www.onvif.org/ver10/media/wsdl"
    public static let events = "http://www.onvif.org/ver10/events/wsdl"
    public static let schema = "http://www.onvif.org/ver10/schema"
    public static let error = "http://www.onvif.org/ver10/error"
    public static let topics = "http://www.onvif.org/ver10/topics"
    public static let notification = "http://docs.oasis-open.org/wsn/b-2"
    public static let addressing = "http://www.w3.org/2005/08/addressing"
    public static let security = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"
    public static let securityUtility =
        "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"
    public static let resourceFaults = "http://docs.oasis-open.org/wsrf/rw-2"
    public static let network = "http://www.onvif.org/ver10/network/wsdl"
    public static let discovery = "http://schemas.xmlsoap.org/ws/2005/04/discovery"
    /// WS-Discovery's addressing is the 2004/08 draft, not the 2005/08 recommendation the services use.
    public static let discoveryAddressing = "http://schemas.xmlsoap.org/ws/2004/08/addressing"

    /// The prefixes on every service reply.
    static let replyPrefixes: [(String, String)] = [
        ("env", soap), ("tds", device), ("trt", media), ("tev", events), ("tt", schema), ("ter", error),
        ("tns1", topics), ("wsnt", notification), ("wsa", addressing), ("wsrf-rw", resourceFaults),
        ("wstop", "http://docs.oasis-open.org/wsn/t-1"), ("xs", "http://www.w3.org/2001/XMLSchema"),
    ]

    /// The prefixes on WS-Discovery's messages.
    static let discoveryPrefixes: [(String, String)] = [
        ("s", soap), ("a", discoveryAddressing), ("d", discovery), ("dn", network), ("tds", device),
    ]
}
