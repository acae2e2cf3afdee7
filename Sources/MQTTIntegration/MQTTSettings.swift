import ApplianceBase
import ApplianceProtocol
import MQTTKit
import Settings

/// `[mqtt]` with its defaults filled in from this device (client id, topic prefix, name) and its password read:
/// everything the bridge needs, resolved once at start.
package struct MQTTSettings: Sendable {
    package var host: String
    package var port: Int
    package var tls: Bool
    package var caFile: String
    package var username: String
    package var password: String?
    package var clientID: String
    package var topics: MQTTTopics
    /// Nil: no discovery.
    package var discoveryPrefix: String?
    package var deviceID: String
    package var deviceName: String
    package var minFreeMb: Int
    package var backup: Bool
    /// Whether the dashboard is on (its address is Home Assistant's configuration URL).
    package var web: Bool
    package var shutters: Bool
    /// Motion and sound detection on (each a binary sensor, and a state topic).
    package var motion: Bool
    package var sound: Bool
    /// Tracked object labels when `[objects]` is on (each an occupancy sensor and a count).
    package var objects: [String]
    /// A speaker is there (`[speaker]`): a Chime button.
    package var speaker: Bool

    /// `hasSpeaker`: whether the board has a speaker to play chimes on (the engine's `SpeakerSink` decides).
    package init(config: ApplianceConfig, hasSpeaker: Bool, identity: DeviceIdentity = .current()) throws {
        let m = config.mqtt
        guard let broker = m.broker else {
            throw ConfigError(file: "", line: nil, key: "mqtt.url", message: "not an MQTT URL: '\(m.url)'")
        }
        (host, port, tls) = (broker.host, broker.port, broker.tls)
        caFile = m.caFile
        username = m.username
        password = try SecretFile.read(
            file: m.passwordFile, key: "mqtt.password_file", environmentVariable: "APPLIANCE_MQTT_PASSWORD")
        deviceID = identity.id
        clientID = m.clientID.isEmpty ? "appliance-\(identity.id)" : m.clientID
        topics = MQTTTopics(prefix: m.topicPrefix.isEmpty ? "appliance/\(identity.id)" : m.topicPrefix)
        discoveryPrefix = m.discoveryPrefix.isEmpty ? nil : m.discoveryPrefix
        deviceName = m.deviceName.isEmpty ? identity.hostName : m.deviceName
        minFreeMb = config.storage.minFreeMb
        backup = config.backup.enabled
        web = config.web.enabled
        shutters = !config.inputs.isEmpty
        motion = config.motion.enabled
        sound = config.sound.enabled && config.audio.source != "none"
        objects = config.objects.enabled ? config.objects.track : []
        speaker = hasSpeaker
    }

    /// The broker as status shows it (no user, no password).
    package var url: String {
        let shown = host.contains(":") ? "[\(host)]" : host
        return "\(tls ? "mqtts" : "mqtt")://\(shown):\(port)"
    }

    package var initialStatus: MQTTStatus {
        MQTTStatus(
            state: .connecting, url: url, topicPrefix: topics.prefix, discoveryPrefix: discoveryPrefix,
            deviceID: deviceID)
    }

    package var connectionOptions: MQTTConnection.Options {
        var o = MQTTConnection.Options(host: host, port: port, tls: tls, clientID: clientID)
        o.caFile = caFile.isEmpty ? nil : caFile
        o.username = username.isEmpty ? nil : username
        o.password = password
        o.will = MQTTMessage(topic: topics.availability, text: "offline", qos: 1, retain: true)
        o.subscriptions = topics.commands.map { ($0, 1) }
        if let discoveryPrefix {
            let discovery = HomeAssistantDiscovery(
                prefix: discoveryPrefix, deviceID: deviceID, deviceName: deviceName,
                version: ApplianceVersion.current, configurationURL: nil, topics: topics,
                cameras: [], shutters: shutters)
            o.subscriptions += [(discovery.statusTopic, 1), (discovery.subscription, 0)]
        }
        return o
    }

    package func discovery(facts: MQTTFacts) -> HomeAssistantDiscovery? {
        discoveryPrefix.map {
            var discovery = HomeAssistantDiscovery(
                prefix: $0, deviceID: deviceID, deviceName: deviceName, version: ApplianceVersion.current,
                configurationURL: facts.webURL, topics: topics, cameras: facts.cameras, shutters: shutters)
            (discovery.motion, discovery.sound, discovery.objects, discovery.speaker) = (
                motion, sound, objects, speaker
            )
            discovery.channels = facts.channels.map(\.entities)
            return discovery
        }
    }
}
