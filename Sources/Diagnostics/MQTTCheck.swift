import Engine
import Foundation
import MQTTIntegration
import MQTTKit
import Settings

/// Check 9: the MQTT broker takes the configured login: one connection with the daemon's own settings (password, TLS
/// trust), as a
/// client id of its own so that it never pushes the running daemon off the broker, and a clean disconnect (no will,
/// no subscription, nothing published).
enum MQTTCheck {
    static let name = "mqtt"

    static func run(_ config: ApplianceConfig) async -> DoctorCheck {
        guard config.mqtt.enabled else { return .pass(name, "MQTT off ([mqtt] url is empty)") }
        let settings: MQTTSettings
        do {
            settings = try MQTTSettings(config: config, hasSpeaker: SpeakerSink.resolve(config.speaker) != nil)
        } catch {
            return .fail(
                name, "\(error)",
                fix:
                    """
                    chmod 600 the password file and make it readable by the service user, or correct [mqtt] \
                    password_file
                    """
            )
        }
        var options = settings.connectionOptions
        options.clientID = settings.clientID + "-doctor"
        (options.will, options.subscriptions) = (nil, [])
        let connection: MQTTConnection
        do {
            connection = try MQTTConnection(options)
        } catch {
            return .fail(name, "\(error)", fix: "point [mqtt] ca_file at the broker's CA certificate (PEM)")
        }
        let thread = Thread { connection.run() }  // ends after `stop` (a clean disconnect when connected)
        thread.name = "mqtt-doctor"
        thread.start()
        var first: MQTTConnection.Event?
        for await event in connection.events {
            if case .message = event { continue }
            first = event
            break
        }
        connection.stop()
        let who = settings.username.isEmpty ? "without a user name" : "as \(settings.username)"
        switch first {
        case .connected:
            return .pass(
                name,
                """
                \(settings.url) takes the login \(who)\(settings.tls ? " over verified TLS" : "") (topics under \
                \(settings.topics.prefix))
                """
            )
        case .disconnected(let reason):
            let tls = reason.contains("TLS") || reason.contains("certificate")
            let refused = reason.contains("Connection Refused")
            return .fail(
                name, "\(settings.url) \(who): \(reason)",
                fix: refused
                    ? "check [mqtt] username and password_file (or APPLIANCE_MQTT_PASSWORD) and the broker's ACL"
                    : tls
                        ? "add the broker's CA to the system store or set [mqtt] ca_file"
                        : "check [mqtt] url, the network and that the broker is running")
        case .message, nil:
            return .fail(
                name, "\(settings.url) did not answer",
                fix: "check [mqtt] url, the network and that the broker is running")
        }
    }
}
