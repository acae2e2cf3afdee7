import ApplianceProtocol

/// Home Assistant's MQTT discovery for this device: one retained config per entity at
/// `<discovery_prefix>/<component>/<node id>/<object id>/config` (the form every Home Assistant version reads, and
/// the one in which an entity is removed by an empty retained message on its topic), all under one `device`.
package struct HomeAssistantDiscovery: Sendable {
    package struct Entity: Sendable, Equatable {
        var component: String
        var objectID: String
        var config: [String: JSONValue]
    }

    package var prefix: String
    package var deviceID: String
    package var deviceName: String
    package var version: String
    package var configurationURL: String?
    package var topics: MQTTTopics
    package var cameras: [String]
    package var shutters: Bool
    /// Motion and sound detection on: a binary sensor each.
    package var motion = false
    package var sound = false
    /// Tracked object labels (`[objects] track`, when on): an occupancy binary sensor and a count each.
    package var objects: [String] = []
    /// A speaker: a button that rings the chime.
    package var speaker = false
    /// With several channels, each one's entities (see `channelEntities`).
    package var channels: [ChannelEntities] = []

    /// The node id, and the prefix of every unique id.
    package var node: String { "appliance_" + deviceID }

    package func topic(_ entity: Entity) -> String { "\(prefix)/\(entity.component)/\(node)/\(entity.objectID)/config" }

    /// Where this device's configs live (subscribed to find configs left from an earlier configuration).
    package var subscription: String { "\(prefix)/+/\(node)/+/config" }

    /// What `<discovery_prefix>/status` carries when Home Assistant (re)starts.
    package var statusTopic: String { prefix + "/status" }

    package var entities: [Entity] {
        var list = recordingEntities + storageEntities + controlEntities
        if shutters {
            list.append(
                entity(
                    "event", "shutter", "Shutter",
                    [
                        "state_topic": .string(topics.gesture),
                        "event_types": .array(InputGesture.Gesture.allCases.map { .string($0.rawValue) }),
                    ]))
        }
        if speaker {
            list.append(
                entity(
                    "button", "chime", "Chime",
                    [
                        "command_topic": .string(topics.chimeSet), "payload_press": "chime", "icon": "mdi:bell-ring",
                    ]))
        }
        list += activityEntities
        list += channels.flatMap(channelEntities)
        for camera in cameras {
            list.append(
                entity(
                    "binary_sensor", "camera_" + MQTTTopics.word(camera), "Camera \(camera) problem",
                    [
                        "state_topic": .string(topics.camera(camera)), "device_class": "problem",
                        "entity_category": "diagnostic",
                    ]))
        }
        return list
    }

    /// The recording switch and what it is doing.
    private var recordingEntities: [Entity] {
        [
            entity(
                "switch", "recording", "Recording",
                [
                    "state_topic": .string(topics.recording), "command_topic": .string(topics.recordingSet),
                    "payload_on": "ON", "payload_off": "OFF", "icon": "mdi:record-rec",
                ]),
            entity(
                "binary_sensor", "recording_active", "Recording active",
                [
                    "state_topic": .string(topics.recording), "device_class": "running",
                ]),
            entity(
                "binary_sensor", "problem", "Problem",
                [
                    "state_topic": .string(topics.problem), "device_class": "problem",
                    "json_attributes_topic": .string(topics.problemAttributes),
                ]),
            entity(
                "sensor", "elapsed", "Recording time",
                [
                    "state_topic": .string(topics.elapsed), "device_class": "duration", "unit_of_measurement": "s",
                    "state_class": "measurement",
                ]),
        ]
    }

    /// The storage and the clips on it.
    private var storageEntities: [Entity] {
        [
            entity(
                "sensor", "free_space", "Free space",
                [
                    "state_topic": .string(topics.freeSpace), "device_class": "data_size", "unit_of_measurement": "MB",
                    "state_class": "measurement", "entity_category": "diagnostic",
                ]),
            entity(
                "sensor", "time_until_wrap", "Time until overwrite",
                [
                    "state_topic": .string(topics.timeUntilWrap), "device_class": "duration",
                    "unit_of_measurement": "s",
                    "suggested_unit_of_measurement": "h", "entity_category": "diagnostic",
                ]),
            entity(
                "sensor", "storage", "Storage",
                [
                    "state_topic": .string(topics.storage), "device_class": "enum",
                    "options": ["ok", "low", "full", "missing"], "entity_category": "diagnostic",
                ]),
            entity(
                "sensor", "clips", "Clips",
                [
                    "state_topic": .string(topics.clips), "state_class": "measurement",
                    "icon": "mdi:filmstrip-box-multiple",
                    "entity_category": "diagnostic",
                ]),
            entity(
                "sensor", "last_clip", "Last clip",
                [
                    "state_topic": .string(topics.lastClip), "value_template": "{{ value_json.title }}",
                    "json_attributes_topic": .string(topics.lastClip), "icon": "mdi:filmstrip",
                ]),
        ]
    }

    /// Buttons and the camera choice, the last thumbnail, the camera's latest picture and the backup queue.
    private var controlEntities: [Entity] {
        [
            entity(
                "button", "snapshot", "Snapshot",
                [
                    "command_topic": .string(topics.snapshotSet), "payload_press": "PRESS", "icon": "mdi:camera",
                ]),
            entity(
                "button", "protect", "Protect",
                [
                    "command_topic": .string(topics.protectSet), "payload_press": "PRESS", "icon": "mdi:shield-lock",
                ]),
            entity(
                "select", "camera", "Camera",
                [
                    "state_topic": .string(topics.camera), "command_topic": .string(topics.cameraSet),
                    "options": .array(cameras.map(JSONValue.string)), "icon": "mdi:cctv",
                ]),
            entity(
                "image", "thumbnail", "Last thumbnail",
                [
                    "image_topic": .string(topics.thumbnail), "content_type": "image/jpeg",
                ]),
            entity("camera", "picture", "Picture", ["topic": .string(topics.picture), "icon": "mdi:cctv"]),
            entity(
                "sensor", "backup_queue", "Backup queue",
                [
                    "state_topic": .string(topics.backupQueue), "state_class": "measurement",
                    "icon": "mdi:cloud-upload",
                    "entity_category": "diagnostic",
                ]),
        ]
    }

    /// What the device notices: each stored activity as an event, today's count, and motion and sound while on.
    private var activityEntities: [Entity] {
        var list: [Entity] = []
        list.append(
            entity(
                "event", "activity", "Activity",
                [
                    "state_topic": .string(topics.activity), "device_class": "motion",
                    "event_types": .array(Activity.Kind.allCases.map { .string($0.rawValue) }),
                ]))
        list.append(
            entity(
                "sensor", "events_today", "Events today",
                [
                    "state_topic": .string(topics.eventsToday),
                    "json_attributes_topic": .string(topics.eventsTodayAttributes),
                    "state_class": "total_increasing", "icon": "mdi:motion-sensor",
                ]))
        if motion {
            list.append(
                entity(
                    "binary_sensor", "motion", "Motion",
                    ["state_topic": .string(topics.motion), "device_class": "motion"]))
        }
        if sound {
            list.append(
                entity(
                    "binary_sensor", "sound", "Sound", ["state_topic": .string(topics.sound), "device_class": "sound"]))
        }
        for label in objects {
            let word = MQTTTopics.word(label)
            let name = label.prefix(1).uppercased() + label.dropFirst()
            list.append(
                entity(
                    "binary_sensor", "\(word)_occupancy", "\(name) occupancy",
                    [
                        "state_topic": .string(topics.object(label)), "device_class": "occupancy",
                    ]))
            list.append(
                entity(
                    "sensor", "\(word)_count", "\(name) count",
                    [
                        "state_topic": .string(topics.objectCount(label)), "state_class": "measurement",
                        "icon": "mdi:account-group",
                    ]))
        }
        return list
    }

    func entity(_ component: String, _ objectID: String, _ name: String, _ keys: [String: JSONValue]) -> Entity {
        var device: [String: JSONValue] = [
            "identifiers": .array([.string(node)]), "name": .string(deviceName), "manufacturer": "appliance",
            "model": "Recording appliance", "sw_version": .string(version),
        ]
        if let configurationURL { device["configuration_url"] = .string(configurationURL) }
        var config = keys
        config["name"] = .string(name)
        config["unique_id"] = .string(node + "_" + objectID)
        config["availability_topic"] = .string(topics.availability)
        config["device"] = .object(device)
        config["origin"] = ["name": "appliance", "sw_version": .string(version)]
        if config["command_topic"] != nil { config["qos"] = 1 }
        return Entity(component: component, objectID: objectID, config: config)
    }

    /// The retained messages that announce every entity.
    package var messages: [(topic: String, payload: String)] {
        entities.map { (topic($0), MQTTFacts.json(.object($0.config))) }
    }
}
