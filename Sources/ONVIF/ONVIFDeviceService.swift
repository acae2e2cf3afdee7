import ApplianceProtocol
import Foundation

#if canImport(FoundationXML)
    import FoundationXML
    import ApplianceBase
#endif

/// The device management service (`tds`): identity, clock, network, and where the other services are. Only the
/// services the appliance implements are advertised (a client that sees a PTZ or imaging address starts using it).
enum ONVIFDeviceService {
    private typealias X = XMLWriter

    package static func respond(_ operation: String, facts: ONVIFFacts, now: Date) throws(SOAPFault) -> XMLElement {
        switch operation {
        case "GetSystemDateAndTime": return systemDateAndTime(now)
        case "GetDeviceInformation":
            return X.element(
                "tds:GetDeviceInformationResponse",
                [
                    X.element("tds:Manufacturer", ONVIFFacts.manufacturer), X.element("tds:Model", ONVIFFacts.model),
                    X.element("tds:FirmwareVersion", ApplianceVersion.current),
                    X.element("tds:SerialNumber", facts.serial),
                    X.element("tds:HardwareId", ONVIFFacts.hardware),
                ])
        case "GetCapabilities": return capabilities(facts)
        case "GetServices": return services(facts)
        case "GetServiceCapabilities":
            return X.element(
                "tds:GetServiceCapabilitiesResponse",
                [
                    X.element(
                        "tds:Capabilities",
                        [
                            X.element(
                                "tds:Network",
                                attributes: [
                                    ("IPFilter", "false"), ("ZeroConfiguration", "false"), ("IPVersion6", "false"),
                                    ("DynDNS", "false"), ("Dot11Configuration", "false"), ("HostnameFromDHCP", "false"),
                                ]),
                            X.element(
                                "tds:Security",
                                attributes: [("UsernameToken", "true"), ("HttpDigest", "false"), ("TLS1.2", "false")]),
                            X.element(
                                "tds:System",
                                attributes: [
                                    ("DiscoveryResolve", "true"), ("DiscoveryBye", "true"),
                                    ("RemoteDiscovery", "false"),
                                    ("SystemBackup", "false"), ("SystemLogging", "false"), ("FirmwareUpgrade", "false"),
                                ]),
                        ])
                ])
        case "GetNetworkInterfaces": return networkInterfaces(facts)
        case "GetScopes":
            return X.element(
                "tds:GetScopesResponse",
                facts.scopes.map {
                    X.element("tds:Scopes", [X.element("tt:ScopeDef", "Fixed"), X.element("tt:ScopeItem", $0)])
                })
        case "GetHostname":
            return X.element(
                "tds:GetHostnameResponse",
                [
                    X.element(
                        "tds:HostnameInformation",
                        [
                            X.element("tt:FromDHCP", "false"), X.element("tt:Name", facts.hostName),
                        ])
                ])
        case "GetDiscoveryMode":
            return X.element("tds:GetDiscoveryModeResponse", [X.element("tds:DiscoveryMode", "Discoverable")])
        default: throw .notImplemented(operation)
        }
    }

    /// UTC, with `NTP` as the kind: a client that sees `Manual` and a skew tries to set the clock, which the
    /// appliance leaves to the system.
    static func systemDateAndTime(_ now: Date) -> XMLElement {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: now)
        let dateTime = { (name: String) in
            X.element(
                name,
                [
                    X.element(
                        "tt:Time",
                        [
                            X.element("tt:Hour", "\(c.hour!)"), X.element("tt:Minute", "\(c.minute!)"),
                            X.element("tt:Second", "\(c.second!)"),
                        ]),
                    X.element(
                        "tt:Date",
                        [
                            X.element("tt:Year", "\(c.year!)"), X.element("tt:Month", "\(c.month!)"),
                            X.element("tt:Day", "\(c.day!)"),
                        ]),
                ])
        }
        return X.element(
            "tds:GetSystemDateAndTimeResponse",
            [
                X.element(
                    "tds:SystemDateAndTime",
                    [
                        X.element("tt:DateTimeType", "NTP"), X.element("tt:DaylightSavings", "false"),
                        X.element("tt:TimeZone", [X.element("tt:TZ", "UTC0")]), dateTime("tt:UTCDateTime"),
                        dateTime("tt:LocalDateTime"),
                    ])
            ])
    }

    private static func capabilities(_ facts: ONVIFFacts) -> XMLElement {
        X.element(
            "tds:GetCapabilitiesResponse",
            [
                X.element(
                    "tds:Capabilities",
                    [
                        X.element(
                            "tt:Device",
                            [
                                X.element("tt:XAddr", facts.deviceServiceURL),
                                X.element(
                                    "tt:Network",
                                    [
                                        X.element("tt:IPFilter", "false"), X.element("tt:ZeroConfiguration", "false"),
                                        X.element("tt:IPVersion6", "false"), X.element("tt:DynDNS", "false"),
                                    ]),
                                X.element(
                                    "tt:System",
                                    [
                                        X.element("tt:DiscoveryResolve", "true"), X.element("tt:DiscoveryBye", "true"),
                                        X.element("tt:RemoteDiscovery", "false"), X.element("tt:SystemBackup", "false"),
                                        X.element("tt:SystemLogging", "false"),
                                        X.element("tt:FirmwareUpgrade", "false"),
                                        X.element(
                                            "tt:SupportedVersions",
                                            [X.element("tt:Major", "2"), X.element("tt:Minor", "5")]),
                                    ]),
                                X.element(
                                    "tt:Security",
                                    [
                                        X.element("tt:TLS1.1", "false"), X.element("tt:TLS1.2", "false"),
                                        X.element("tt:OnboardKeyGeneration", "false"),
                                        X.element("tt:AccessPolicyConfig", "false"),
                                        X.element("tt:X.509Token", "false"), X.element("tt:SAMLToken", "false"),
                                        X.element("tt:KerberosToken", "false"), X.element("tt:RELToken", "false"),
                                    ]),
                            ]),
                        X.element(
                            "tt:Events",
                            [
                                X.element("tt:XAddr", facts.eventsServiceURL),
                                X.element("tt:WSSubscriptionPolicySupport", "false"),
                                X.element("tt:WSPullPointSupport", "true"),
                                X.element("tt:WSPausableSubscriptionManagerInterfaceSupport", "false"),
                            ]),
                        X.element(
                            "tt:Media",
                            [
                                X.element("tt:XAddr", facts.mediaServiceURL),
                                X.element(
                                    "tt:StreamingCapabilities",
                                    [
                                        X.element("tt:RTPMulticast", "false"), X.element("tt:RTP_TCP", "true"),
                                        X.element("tt:RTP_RTSP_TCP", "true"),
                                    ]),
                            ]),
                    ])
            ])
    }

    private static func services(_ facts: ONVIFFacts) -> XMLElement {
        let entry = { (namespace: String, url: String) in
            X.element(
                "tds:Service",
                [
                    X.element("tds:Namespace", namespace), X.element("tds:XAddr", url),
                    X.element("tds:Version", [X.element("tt:Major", "2"), X.element("tt:Minor", "5")]),
                ])
        }
        return X.element(
            "tds:GetServicesResponse",
            [
                entry(ONVIFNamespace.device, facts.deviceServiceURL),
                entry(ONVIFNamespace.media, facts.mediaServiceURL),
                entry(ONVIFNamespace.events, facts.eventsServiceURL),
            ])
    }

    /// The primary interface only (the MAC in the discovery scopes): Home Assistant's set-up keys the device by the
    /// first enabled interface's MAC and its runtime by the last, so a second interface would make two devices.
    private static func networkInterfaces(_ facts: ONVIFFacts) -> XMLElement {
        let listed = NetworkInterface.primary(facts.interfaces).map { [$0] } ?? []
        return X.element(
            "tds:GetNetworkInterfacesResponse",
            listed.map { i in
                X.element(
                    "tds:NetworkInterfaces", attributes: [("token", i.name)],
                    [
                        X.element("tt:Enabled", i.isUp ? "true" : "false"),
                        X.element(
                            "tt:Info",
                            [
                                X.element("tt:Name", i.name), X.element("tt:HwAddress", i.mac ?? ""),
                                X.element("tt:MTU", "1500"),
                            ]),
                        X.element(
                            "tt:IPv4",
                            [
                                X.element("tt:Enabled", "true"),
                                X.element(
                                    "tt:Config",
                                    [
                                        X.element(
                                            "tt:Manual",
                                            [
                                                X.element("tt:Address", i.address),
                                                X.element("tt:PrefixLength", "\(i.prefixLength)"),
                                            ]),
                                        X.element("tt:DHCP", "false"),
                                    ]),
                            ]),
                    ])
            })
    }
}
