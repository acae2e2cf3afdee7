import ApplianceProtocol
import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// One ONVIF event: a property of the device that changed (or its state, `Initialized`, when a client subscribes
/// or synchronises). Topics are the ones Home Assistant's parsers know, with fixed source values so its entities
/// stay the same across restarts. Motion, objects and recording are a profile's (a channel's): their source names
/// that profile's video source or recording job, so each channel is an entity of its own in Home Assistant, whose
/// parsers tell entities apart by topic and source; the first channel's sources are the tokens a device had before
/// channels.
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

        /// Whether it is a profile's rather than the device's (sound is the microphone's).
        var perChannel: Bool { self != .sound }
    }

    /// What a notification is the latest state of: a property of one channel.
    package struct Key: Hashable, Sendable {
        package var property: Property
        package var channel: String
    }

    package enum Operation: String, Sendable { case initialized = "Initialized", changed = "Changed" }

    package var property: Property
    package var value: Bool
    package var time: Date
    package var operation: Operation = .changed
    /// The profile's channel ("": the first's, whose tokens are the ones a device had before channels).
    package var channel = ""

    package var key: Key { Key(property: property, channel: property.perChannel ? channel : "") }

    /// The notification an appliance event makes, if any. `otherChannels`: the channels after the first (a profile
    /// each); an event naming none of them is the first channel's (its motion names no channel, its recording the
    /// channel's name, or `main`).
    package init?(_ event: ApplianceEvent, at time: Date = Date(), otherChannels: [String] = []) {
        let named: String?
        switch event {
        case .motionStarted(let m), .motionEnded(let m):
            (property, value, named) = (.motion, event.kind == .motionStarted, m.channel)
        case .soundStarted: (property, value, named) = (.sound, true, nil)
        case .soundEnded: (property, value, named) = (.sound, false, nil)
        case .recordingStarted(let r): (property, value, named) = (.recording, true, r.channel)
        case .recordingStopped(let r): (property, value, named) = (.recording, false, r.channel)
        default: return nil
        }
        self.time = time
        channel = Self.profileChannel(named, otherChannels: otherChannels)
    }

    package init(property: Property, value: Bool, time: Date, operation: Operation, channel: String = "") {
        (self.property, self.value, self.time, self.operation, self.channel) = (
            property, value, time, operation, channel
        )
    }

    /// The profile an event's channel is: one of the others by name, or else the first ("").
    package static func profileChannel(_ named: String?, otherChannels: [String]) -> String {
        named.flatMap { otherChannels.contains($0) ? $0 : nil } ?? ""
    }

    /// A first-channel token, or the same token suffixed `-NAME` for another channel's profile (as `ONVIFFacts`
    /// names its video source).
    private func token(_ base: String) -> String { channel.isEmpty ? base : "\(base)-\(channel)" }

    /// `Source` items, and the one `Data` item (Home Assistant reads the first data item's value).
    private var items: (source: [(String, String)], data: (String, String)) {
        switch property {
        case .motion:
            (
                [
                    ("VideoSourceConfigurationToken", token(ONVIFFacts.videoSourceConfigurationToken)),
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
            ([("RecordingJobToken", token("recording"))], ("State", value ? "Active" : "Idle"))
        case .person, .vehicle, .pet:
            ([("Source", token(ONVIFFacts.videoSourceConfigurationToken))], ("State", value ? "true" : "false"))
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
