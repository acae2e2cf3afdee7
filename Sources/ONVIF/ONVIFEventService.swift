import Foundation

#if canImport(FoundationXML)
    import FoundationXML
    import ApplianceBase
#endif

/// The event service (`tev`) and its PullPoint subscriptions: CreatePullPointSubscription at the service, then
/// PullMessages, SetSynchronizationPoint, Renew and Unsubscribe at the subscription's own address. The topics are
/// motion, sound and the recording's state (`ONVIFNotification`). Push subscriptions (`Subscribe`) are not offered:
/// a client that tries gets a fault and pulls instead, as Home Assistant does.
enum ONVIFEventService {
    private typealias X = XMLWriter

    package static func respond(
        _ operation: String, request: XMLTree, facts: ONVIFFacts, subscriptions: PullPointSubscriptions,
        now: Date
    ) throws(SOAPFault) -> XMLElement {
        switch operation {
        case "GetServiceCapabilities":
            return X.element(
                "tev:GetServiceCapabilitiesResponse",
                [
                    X.element(
                        "tev:Capabilities",
                        attributes: [
                            ("WSSubscriptionPolicySupport", "false"), ("WSPullPointSupport", "true"),
                            ("WSPausableSubscriptionManagerInterfaceSupport", "false"),
                            ("MaxNotificationProducers", "0"),
                            ("MaxPullPoints", "\(PullPointSubscriptions.maxSubscriptions)"),
                            ("PersistentNotificationStorage", "false"),
                        ])
                ])
        case "CreatePullPointSubscription":
            let requested = try requestedTermination(request.value("InitialTerminationTime"), now: now)
            let (id, termination) = try subscriptions.create(requested: requested, now: now)
            return X.element(
                "tev:CreatePullPointSubscriptionResponse",
                [
                    X.element("tev:SubscriptionReference", [X.element("wsa:Address", subscriptionURL(facts, id))]),
                    X.element("wsnt:CurrentTime", ONVIFTime.string(now)),
                    X.element("wsnt:TerminationTime", ONVIFTime.string(termination)),
                ])
        case "GetEventProperties": return eventProperties()
        default: throw .notImplemented(operation)
        }
    }

    /// An operation at a subscription's address.
    package static func respond(
        subscription id: String, _ operation: String, namespace: String, request: XMLTree,
        subscriptions: PullPointSubscriptions, now: Date
    ) async throws(SOAPFault) -> XMLElement {
        switch (namespace, operation) {
        case (ONVIFNamespace.events, "PullMessages"):
            guard let timeoutText = request.value("Timeout"), let timeout = ONVIFTime.seconds(timeoutText) else {
                throw .invalidArgument("PullMessages needs a Timeout duration (PT1M)")
            }
            let limit = Int(request.value("MessageLimit") ?? "") ?? 100
            let (messages, termination) = try await subscriptions.pull(id, timeout: timeout, limit: limit, now: now)
            return X.element(
                "tev:PullMessagesResponse",
                [
                    X.element("tev:CurrentTime", ONVIFTime.string(Date())),
                    X.element("tev:TerminationTime", ONVIFTime.string(termination)),
                ] + messages.map(\.element))
        case (ONVIFNamespace.events, "SetSynchronizationPoint"):
            try subscriptions.synchronize(id, now: now)
            return X.element("tev:SetSynchronizationPointResponse")
        case (ONVIFNamespace.notification, "Renew"):
            let requested = try requestedTermination(request.value("TerminationTime"), now: now)
            let termination = try subscriptions.renew(id, requested: requested, now: now)
            return X.element(
                "wsnt:RenewResponse",
                [
                    X.element("wsnt:TerminationTime", ONVIFTime.string(termination)),
                    X.element("wsnt:CurrentTime", ONVIFTime.string(now)),
                ])
        case (ONVIFNamespace.notification, "Unsubscribe"):
            try subscriptions.unsubscribe(id, now: now)
            return X.element("wsnt:UnsubscribeResponse")
        default: throw .notImplemented(operation)
        }
    }

    static func subscriptionURL(_ facts: ONVIFFacts, _ id: String) -> String {
        facts.serviceBase + "/onvif/pullpoint/" + id
    }

    /// A duration (`PT600S`) or a time; absent means the default term.
    private static func requestedTermination(_ text: String?, now: Date) throws(SOAPFault) -> Date? {
        guard let text, !text.isEmpty else { return nil }
        guard let date = ONVIFTime.termination(text, now: now) else {
            throw .invalidArgument("'\(text)' is neither a duration (PT600S) nor a date and time")
        }
        return date
    }

    /// A topic's message description: the items that name its source, and its data item.
    private static func description(_ source: [String], _ data: (String, String)) -> XMLElement {
        X.element(
            "tt:MessageDescription", attributes: [("IsProperty", "true")],
            [
                X.element(
                    "tt:Source",
                    source.map {
                        X.element(
                            "tt:SimpleItemDescription", attributes: [("Name", $0), ("Type", "tt:ReferenceToken")])
                    }),
                X.element(
                    "tt:Data",
                    [X.element("tt:SimpleItemDescription", attributes: [("Name", data.0), ("Type", data.1)])]),
            ])
    }

    /// The topics this device raises, with their message descriptions.
    private static func topicSet() -> XMLElement {
        X.element(
            "wstop:TopicSet",
            [
                X.element(
                    "tns1:RuleEngine",
                    [
                        X.element(
                            "CellMotionDetector",
                            [
                                X.element(
                                    "Motion", attributes: [("wstop:topic", "true")],
                                    [
                                        description(
                                            [
                                                "VideoSourceConfigurationToken", "VideoAnalyticsConfigurationToken",
                                                "Rule",
                                            ], ("IsMotion", "xs:boolean"))
                                    ])
                            ])
                    ]),
                X.element(
                    "tns1:AudioAnalytics",
                    [
                        X.element(
                            "Audio",
                            [
                                X.element(
                                    "DetectedSound", attributes: [("wstop:topic", "true")],
                                    [
                                        description(
                                            [
                                                "AudioSourceConfigurationToken", "AudioAnalyticsConfigurationToken",
                                                "Rule",
                                            ], ("IsSoundDetected", "xs:boolean"))
                                    ])
                            ])
                    ]),
                X.element(
                    "tns1:RecordingConfig",
                    [
                        X.element(
                            "JobState", attributes: [("wstop:topic", "true")],
                            [
                                description(["RecordingJobToken"], ("State", "xs:string"))
                            ])
                    ]),
                X.element(
                    "tns1:RuleEngine",
                    [
                        X.element(
                            "MyRuleDetector",
                            ["PeopleDetect", "VehicleDetect", "DogCatDetect"].map {
                                X.element(
                                    $0, attributes: [("wstop:topic", "true")],
                                    [description(["Source"], ("State", "xs:boolean"))])
                            })
                    ]),
            ])
    }

    private static func eventProperties() -> XMLElement {
        let topicSet = topicSet()
        return X.element(
            "tev:GetEventPropertiesResponse",
            [
                X.element("tev:TopicNamespaceLocation", "http://www.onvif.org/onvif/ver10/topics/topicns.xml"),
                X.element("wsnt:FixedTopicSet", "true"), topicSet,
                X.element("wsnt:TopicExpressionDialect", "http://www.onvif.org/ver10/tev/topicExpression/ConcreteSet"),
                X.element(
                    "tev:MessageContentFilterDialect",
                    "http://www.onvif.org/ver10/tev/messageContentFilter/ItemFilter"),
                X.element("tev:MessageContentSchemaLocation", "http://www.onvif.org/onvif/ver10/schema/onvif.xsd"),
            ])
    }
}
