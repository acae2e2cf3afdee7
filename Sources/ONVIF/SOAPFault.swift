import Foundation

/// A SOAP 1.2 fault: what every refused or unknown request gets (never an empty 200: a client reads an empty or
/// plain-text reply as a transport error). `subcode` is an ONVIF error (`ter:NotAuthorized`) or a WS-RF one.
public struct SOAPFault: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable { case sender = "env:Sender", receiver = "env:Receiver" }

    public var code: Code
    public var subcode: String
    public var reason: String
    /// 400 for the sender's faults, 500 for the receiver's, as ONVIF devices answer.
    public var httpStatus: Int { code == .sender ? 400 : 500 }
    public var description: String { "\(subcode): \(reason)" }

    public init(_ code: Code, _ subcode: String, _ reason: String) {
        (self.code, self.subcode, self.reason) = (code, subcode, reason)
    }

    /// Missing, wrong or replayed credentials. Home Assistant asks for the password again on `NotAuthorized`.
    package static func notAuthorized(_ reason: String) -> SOAPFault {
        SOAPFault(.sender, "ter:NotAuthorized", "Sender not authorized: \(reason)")
    }
    /// An operation this device does not offer; the reason says "not implemented", the words clients look for.
    package static func notImplemented(_ operation: String) -> SOAPFault {
        SOAPFault(.receiver, "ter:ActionNotSupported", "\(operation) is not implemented by this device")
    }
    static func invalidArgument(_ reason: String) -> SOAPFault { SOAPFault(.sender, "ter:InvalidArgVal", reason) }
    package static func malformed(_ reason: String) -> SOAPFault {
        SOAPFault(.sender, "ter:WellFormed", "malformed request: \(reason)")
    }
    static func noProfile(_ token: String) -> SOAPFault {
        SOAPFault(.sender, "ter:NoProfile", "no profile with token '\(token)'")
    }
    static func unknownSubscription() -> SOAPFault {
        SOAPFault(
            .sender, "wsrf-rw:ResourceUnknownFault", "no such subscription (it expired, was ended, or never existed)")
    }

    /// The fault as a whole SOAP envelope.
    package var envelope: Data {
        XMLWriter.envelope(body: [
            XMLWriter.element(
                "env:Fault",
                [
                    XMLWriter.element(
                        "env:Code",
                        [
                            XMLWriter.element("env:Value", code.rawValue),
                            XMLWriter.element("env:Subcode", [XMLWriter.element("env:Value", subcode)]),
                        ]),
                    XMLWriter.element(
                        "env:Reason", [XMLWriter.element("env:Text", reason, attributes: [("xml:lang", "en")])]),
                ])
        ])
    }
}
