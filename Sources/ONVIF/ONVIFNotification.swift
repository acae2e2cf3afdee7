import ApplianceProtocol
import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// One ONVIF event: a property of the device that changed (or its state, `Initialized`, when a client subscribes
/// or synchronises). Topics are the ones Home Assistant's parsers know, with fixed source values so its entities
/// stay the same across restarts.
package struct ONVIFNotification: Sendable, Equatable {
    package enum Property: String, Sendable, CaseIterable {
        case motion = "tns1:RuleEngine/CellMotionDetector/Motion"
        case sound = "tns1:AudioAnalytics/Audio/DetectedSound"
        case recording = "tns1:RecordingConfig/JobState"
        /// Objects, by the classes Home Assistant's parsers know (onvif-parsers: "Person Detection", "Vehicle
        /// Detection", "Pet Detection"; Source `Source`, the first Data item "true" or "false").
        case person = "tns1:RuleEngine/MyRuleDetector/PeopleDetect"
        case vehicle = "tns1:RuleEngine/MyRuleDetector/VehicleDetect"
        case pet = "tns1:RuleEngine/MyRuleDetector/DogCatDetect"

        /// The class an object label falls in (COCO's names), if one of these.
        package static func objectClass(_ label: String) -> Property? {
            switch label {
            case "person": .person
            case "car", "truck", "bus", "motorcycle", "bicycle", "train", "boat": .vehicle
            case "dog", "cat": .pet
            default: nil
            }
        }

        package static let objectClasses: [Property] = [.person, .vehicle, .pet]
    }

    package enum Operation: String, Sendable { case initialized = "Initialized", changed = "Changed" }

    package var property: Property
    package var value: Bool
    package var time: Date
    package var operation: Operation = .changed

    /// The notification an appliance event makes, if any.
    package init?(_ event: ApplianceEvent, at time: Date = Date()) {
        switch event {
        // The first profile's picture (its video source); another channel's motion names its channel.
        case .motionStarted(let m) where m.channel == nil: (property, value) = (.motion, true)
        case .motionEnded(let m) where m.channel == nil: (property, value) = (.motion, false)
        case .soundStarted: (property, value) = (.sound, true)
        case .soundEnded: (property, value) = (.sound, false)
        case .recordingStarted: (property, value) = (.recording, true)
        case .recordingStopped: (property, value) = (.recording, false)
        default: return nil
        }
        self.time = time
    }

    package init(property: Property, value: Bool, time: Date, operation: Operation) {
        (self.property, self.value, self.time, self.operation) = (property, value, time, operation)
    }

    /// `Source` items, and the one `Data` item (Home Assistant reads the first data item's value).
    private var items: (source: [(String, String)], data: (String, String)) {
        switch property {
        case .motion:
            (
                [
                    ("VideoSourceConfigurationToken", ONVIFFacts.videoSourceConfigurationToken),
                    ("VideoAnalyticsConfigurationToken", "analytics"),
                    ("Rule", "motion"),
                ], ("IsMotion", value ? "true" : "false")
            )
        case .sound:
            (
                [
                    ("AudioSourceConfigurationToken", ONVIFFacts.audioSourceToken),
                    ("AudioAnalyticsConfigurationToken", "analytics"),
                    ("Rule", "sound"),
                ], ("IsSoundDetected", value ? "true" : "false")
            )
        case .recording:
            ([("RecordingJobToken", "recording")], ("State", value ? "Active" : "Idle"))
        case .person, .vehicle, .pet:
            ([("Source", ONVIFFacts.videoSourceConfigurationToken)], ("State", value ? "true" : "false"))
        }
    }

    /// `wsnt:NotificationMessage`.
    package var element: XMLElement {
        let (source, data) = items
        let simple = { (pair: (String, String)) in
            XMLWriter.element("tt:SimpleItem", attributes: [("Name", pair.0), ("Value", pair.1)])
        }
        return XMLWriter.element(
            "wsnt:NotificationMessage",
            [
                XMLWriter.element(
                    "wsnt:Topic", property.rawValue,
                    attributes: [("Dialect", "http://www.onvif.org/ver10/tev/topicExpression/ConcreteSet")]),
                XMLWriter.element(
                    "wsnt:Message",
                    [
                        XMLWriter.element(
                            "tt:Message",
                            attributes: [
                                ("UtcTime", ONVIFTime.string(time)), ("PropertyOperation", operation.rawValue),
                            ],
                            [
                                XMLWriter.element("tt:Source", source.map(simple)),
                                XMLWriter.element("tt:Data", [simple(data)]),
                            ])
                    ]),
            ])
    }
}
