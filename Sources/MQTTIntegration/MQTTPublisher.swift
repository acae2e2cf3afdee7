import ApplianceProtocol
import Foundation
import Logging
import MQTTKit

/// The bridge's state, one actor: the facts, what was last published on each retained topic (so only changes go
/// out), and the discovery topics announced. Everything it sends goes through `MQTTConnection.publish`, which never
/// waits; while disconnected nothing is sent and `connected()` sends it all again.
package actor MQTTPublisher {
    private let settings: MQTTSettings
    private let connection: MQTTConnection
    private let perform: @Sendable (Command) async throws(ApplianceError) -> CommandResult
    private let logger: Logger
    private var facts = MQTTFacts()
    private var published: [String: [UInt8]] = [:]
    /// The thumbnail file last published on each thumbnail topic (the device's, and each channel's).
    private var thumbnails: [String: String] = [:]
    private var announced: Set<String> = []
    /// Whether the entry point has answered once: until then the facts are empty and nothing is published.
    private var known = false

    package init(
        settings: MQTTSettings, connection: MQTTConnection,
        perform: @escaping @Sendable (Command) async throws(ApplianceError) -> CommandResult, logger: Logger
    ) {
        (self.settings, self.connection, self.perform, self.logger) = (settings, connection, perform, logger)
    }

    /// After every connect: online, the discovery configs, and every state, whatever was sent before.
    package func connected() async {
        await ask(.all)
        // Just after start the dashboard may not have bound its port yet: its address goes in the discovery.
        for _ in 0..<20 where settings.web && facts.webURL == nil {
            try? await Task.sleep(for: .milliseconds(250))
            await ask(.status)
        }
        known = true
        connection.publish(MQTTMessage(topic: settings.topics.availability, text: "online", qos: 1, retain: true))
        announce()
        published = [:]
        thumbnails = [:]
        publishChanges()
    }

    package func fold(_ event: ApplianceEvent) async {
        if case .inputGesture(let g) = event {
            let payload = MQTTFacts.json([
                "event_type": .string(g.gesture.rawValue), "label": .string(g.label), "action": .string(g.action),
            ])
            connection.publish(MQTTMessage(topic: settings.topics.gesture, text: payload))
        }
        if case .activity(let activity) = event {
            connection.publish(
                MQTTMessage(
                    topic: settings.topics.activity,
                    text: MQTTFacts.json(MQTTFacts.eventPayload(activity, webURL: facts.webURL))))
            if let picture = activity.thumbnail { publishPicture(picture, channel: activity.channel) }
        }
        let refresh = facts.fold(event, now: Date())
        publishChanges()  // what the event says shows at once
        if !refresh.isEmpty {
            let (cameras, channels) = (facts.cameras, facts.channels.map(\.entities))
            await ask(refresh)
            if facts.cameras != cameras || facts.channels.map(\.entities) != channels { announce() }
            publishChanges()
        }
    }

    /// Until the first storage check has measured the disk, status is asked every tick rather than every refresh:
    /// that measurement sends no event, and a first status read before it left free_space "None" for a whole refresh
    /// (a CI run on a loaded machine).
    package func tick(refresh: Bool) async {
        if refresh || facts.freeBytes == nil { await ask(.status) }
        if let counted = facts.eventsToday?.day, counted != ActivityCounts.day(of: Date()) {
            await ask(.activityCounts)
        }
        publishChanges()
    }

    /// A message on a subscribed topic: Home Assistant coming back, an old discovery config, or a command.
    package func received(_ message: MQTTMessage) async {
        if let discovery = settings.discovery(facts: facts) {
            if message.topic == discovery.statusTopic {
                if message.text == "online" {
                    logger.info("Home Assistant is online: discovery and states sent again")
                    announce()
                    published = [:]
                    thumbnails = [:]
                    publishChanges()
                }
                return
            }
            if message.topic.hasPrefix(discovery.prefix + "/"), message.topic.hasSuffix("/config") {
                // A retained config of this device that the current configuration no longer has (a camera removed):
                // cleared, so Home Assistant removes the entity.
                if message.retain, !message.payload.isEmpty, !announced.contains(message.topic) {
                    logger.info("MQTT discovery: removing \(message.topic), which this configuration no longer has")
                    connection.publish(MQTTMessage(topic: message.topic, payload: [], qos: 1, retain: true))
                }
                return
            }
        }
        switch MQTTCommandParser.command(
            topic: message.topic, payload: message.payload, topics: settings.topics, cameras: facts.cameras,
            channels: facts.channels.map(\.name))
        {
        case .failure(let refusal):
            logger.notice("MQTT \(message.topic): ignored: \(refusal)")
        case .success(let command):
            do {
                let result = try await perform(command)
                if case .snapshot(let channel) = command, case .snapshot(let taken) = result {
                    publishPicture(taken.path, channel: channel)
                }
            } catch {
                logger.notice("MQTT \(message.topic): \(command.name): \(error)")
            }
        }
    }

    // MARK: - Publishing

    private func announce() {
        guard known, let discovery = settings.discovery(facts: facts) else { return }
        var topics: Set<String> = []
        for (topic, payload) in discovery.messages {
            topics.insert(topic)
            connection.publish(MQTTMessage(topic: topic, text: payload, qos: 1, retain: true))
        }
        // A config this run announced before and no longer has (the camera list changed) is cleared at once.
        for gone in announced.subtracting(topics) {
            connection.publish(MQTTMessage(topic: gone, payload: [], qos: 1, retain: true))
        }
        announced = topics
    }

    private func publishChanges() {
        guard known else { return }
        for (topic, payload) in facts.states(settings.topics, now: Date()) where published[topic] != payload {
            if connection.publish(MQTTMessage(topic: topic, payload: payload, qos: 1, retain: true)) {
                published[topic] = payload
            }
        }
        publishThumbnail(facts.lastClip, on: settings.topics.thumbnail)
        for channel in facts.channels {
            publishThumbnail(channel.lastClip, on: settings.topics.channelThumbnail(channel.name))
        }
    }

    /// A clip's thumbnail JPEG on an image topic, when it is not the one published there last.
    private func publishThumbnail(_ clip: Recording?, on topic: String) {
        guard let path = clip?.thumbnail, path != thumbnails[topic],
            let bytes = FileManager.default.contents(atPath: path)
        else { return }
        if connection.publish(MQTTMessage(topic: topic, payload: Array(bytes), qos: 1, retain: true)) {
            thumbnails[topic] = path
        }
    }

    /// A picture (a JPEG file) as the latest of `channel`'s camera (nil: the first channel's): on the device's picture
    /// topic when it is the first channel's, and on the channel's own with several channels. Retained, so Home
    /// Assistant shows it after a restart.
    private func publishPicture(_ path: String, channel: String?) {
        guard let bytes = FileManager.default.contents(atPath: path) else { return }
        let first = facts.channels.first?.name
        var topics: [String] = []
        if channel == nil || channel == first { topics.append(settings.topics.picture) }
        if let name = channel ?? first { topics.append(settings.topics.channelPicture(name)) }
        for topic in topics {
            connection.publish(MQTTMessage(topic: topic, payload: Array(bytes), qos: 1, retain: true))
        }
    }

    /// Asks the entry point for the parts `refresh` names; a refused or failed command leaves that part as it was.
    private func ask(_ refresh: MQTTRefresh) async {
        if refresh.contains(.status), case .status(let s)? = try? await perform(.status) {
            facts.apply(s, minFreeMb: settings.minFreeMb, now: Date())
        }
        if refresh.contains(.cameras), case .cameras(let c)? = try? await perform(.cameras) { facts.apply(c) }
        if refresh.contains(.backup), settings.backup, case .backupStatus(let b)? = try? await perform(.backupStatus) {
            facts.apply(b)
        }
        if refresh.contains(.lastClip), case .list(let page)? = try? await perform(.list(page: 1, perPage: 3)) {
            facts.lastClip = page.items.first { $0.state != .recording }
        }
        if refresh.contains(.lastClip) {
            for (index, channel) in facts.channels.enumerated() {
                guard
                    case .list(let page)? = try? await perform(
                        .listFiltered(ListFilter(channel: channel.name), page: 1, perPage: 3))
                else { continue }
                facts.channels[index].lastClip = page.items.first { $0.state != .recording }
            }
        }
        if refresh.contains(.activityCounts) { await countActivity() }
    }

    /// Today's activity of each kind (one `activity` command each, asking for the total only).
    private func countActivity() async {
        let day = ActivityCounts.day(of: Date())
        var counts = ActivityCounts(day: day, byKind: [:])
        for kind in Activity.Kind.allCases {
            guard
                case .activity(let list)? = try? await perform(
                    .activity(ActivityFilter(kinds: [kind], from: day, limit: 1)))
            else { return }
            counts.byKind[kind] = list.total
        }
        facts.eventsToday = counts
    }
}
