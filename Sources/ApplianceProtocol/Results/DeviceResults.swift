import Foundation

/// One `[[input]]` as status reports it, and the data of `input_connected` / `input_missing`.
public struct InputStatus: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable {
        /// Open and read.
        case connected
        /// Not there (yet): the path does not exist, no device has the name, the chip or line is absent. Retried.
        case missing
        /// There but unusable (permissions, busy line, …). Retried.
        case failed
    }

    public var label: String
    /// `evdev` or `gpio`.
    public var kind: String
    /// What is opened, or looked for: a path, `name "…"`, `chip line`.
    public var device: String
    public var state: State
    /// Why it is missing or failed, or a note on a connected one (e.g. "grab not possible: not an input device").
    public var detail: String?
    /// evdev with `grab`: whether this daemon holds the device alone.
    public var grabbed: Bool?

    public init(label: String, kind: String, device: String, state: State, detail: String? = nil, grabbed: Bool? = nil)
    {
        (self.label, self.kind, self.device, self.state, self.detail, self.grabbed) = (
            label, kind, device, state, detail, grabbed
        )
    }
}

/// A button gesture an input recognised, and what its command did (`input_gesture`).
public struct InputGesture: Codable, Sendable, Equatable {
    public enum Gesture: String, Codable, Sendable, CaseIterable {
        case press
        case longPress = "long_press"
        case doublePress = "double_press"
        case holdStart = "hold_start"
        case holdEnd = "hold_end"
    }

    public var label: String
    public var gesture: Gesture
    /// The configured action (`toggle`, `snapshot`, …).
    public var action: String
    /// The command sent (its wire name).
    public var command: String
    /// The command's error, if it failed (e.g. `stop` while idle); the input goes on.
    public var error: String?

    public init(label: String, gesture: Gesture, action: String, command: String, error: String? = nil) {
        (self.label, self.gesture, self.action, self.command, self.error) = (label, gesture, action, command, error)
    }
}

/// One `[[output]]` as status reports it.
public struct OutputStatus: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable { case on, off, blinking, failed }

    public var label: String
    /// `gpio` or `led`.
    public var kind: String
    public var role: String
    public var device: String
    public var state: State
    /// Why it failed, or what fault makes it blink (`storage_low`, `camera_failed`, `backup_paused`, …).
    public var detail: String?

    public init(label: String, kind: String, role: String, device: String, state: State, detail: String? = nil) {
        (self.label, self.kind, self.role, self.device, self.state, self.detail) = (
            label, kind, role, device, state, detail
        )
    }
}

/// What `record.toggle` answers: the recording it started, or the clip it finished.
public struct ToggleResult: Codable, Sendable, Equatable {
    public var started: RecordingStarted?
    public var stopped: RecordingResult?

    public init(started: RecordingStarted) { (self.started, self.stopped) = (started, nil) }
    public init(stopped: RecordingResult) { (self.started, self.stopped) = (nil, stopped) }
}

/// The web dashboard: where it serves and who is watching (absent when `[web] listen = "off"`).
public struct WebStatus: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable { case starting, serving, failed }
    public var state: State
    /// `[web] listen` as configured.
    public var listen: String
    /// The address it serves on, once bound (port 0 in the config becomes the real port here).
    public var url: String?
    /// Why it is not serving (the address is taken, say); it retries.
    public var error: String?
    /// Open live-view streams (MJPEG).
    public var liveViewers: Int
    /// Live views over WebRTC (WHEP sessions).
    public var webrtcViewers: Int
    /// The served certificate's SHA-256 fingerprint (`AB:CD:…`, as browsers show it) when it serves HTTPS: what a
    /// user checks on the first visit. Absent over plain HTTP.
    public var fingerprint: String?
    /// When that certificate ends (the device renews its own a month before).
    public var certificateExpires: Date?

    public init(
        state: State, listen: String, url: String? = nil, error: String? = nil, liveViewers: Int = 0,
        webrtcViewers: Int = 0
    ) {
        (self.state, self.listen, self.url, self.error, self.liveViewers) = (state, listen, url, error, liveViewers)
        self.webrtcViewers = webrtcViewers
    }
}

/// The RTSP live stream: where it serves and how many clients play it (absent when `[rtsp] listen = "off"`). The
/// password is never here: `authentication` only says whether one is asked for.
public struct RTSPStatus: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable { case starting, serving, failed }
    public var state: State
    /// `[rtsp] listen` as configured.
    public var listen: String
    /// What a client opens (`rtsp://host:port/live`), once bound: a wildcard address shows this machine's address.
    public var url: String?
    /// Why it is not serving (the address is taken, say); it retries.
    public var error: String?
    /// Clients connected now.
    public var clients: Int
    /// "digest" (user `appliance`, the `[web] token_file` password), or "none".
    public var authentication: String
    /// With several channels, each one's own stream (`rtsp://host:port/live/NAME`) by name; `url` stays the first's.
    public var channelStreams: [String: String]?

    public init(
        state: State, listen: String, url: String? = nil, error: String? = nil, clients: Int = 0, authentication: String
    ) {
        (self.state, self.listen, self.url, self.error, self.clients, self.authentication) = (
            state, listen, url, error, clients, authentication
        )
    }
}

/// ONVIF (absent when `[onvif] enabled` is off): its services are on the web server (`device_service` is the
/// address NVRs are given); WS-Discovery answers on UDP `listen` on the named interfaces.
public struct ONVIFStatus: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable { case starting, serving, failed, off }
    /// WS-Discovery's state (`off`: `[onvif] listen = "off"`, the services still answer).
    public var discovery: State
    /// `[onvif] listen` as configured, with the port bound once serving.
    public var listen: String
    /// Where an NVR adds the device by hand (`http://host:port/onvif/device_service`), once the web server serves.
    public var deviceService: String?
    /// The interfaces discovery answers and announces on.
    public var interfaces: [String]
    /// The WS-Discovery endpoint (`urn:uuid:…`, the same across restarts).
    public var endpoint: String
    /// Why discovery is not serving; it retries.
    public var error: String?
    /// PullPoint subscriptions open now.
    public var subscriptions: Int
    /// "ws-usernametoken" (user `appliance`, the `[web] token_file` password), or "none".
    public var authentication: String

    public init(
        discovery: State, listen: String, deviceService: String? = nil, interfaces: [String] = [], endpoint: String,
        error: String? = nil, subscriptions: Int = 0, authentication: String
    ) {
        (self.discovery, self.listen, self.deviceService, self.interfaces) = (
            discovery, listen, deviceService, interfaces
        )
        (self.endpoint, self.error, self.subscriptions, self.authentication) = (
            endpoint, error, subscriptions, authentication
        )
    }
}

/// The MQTT link (absent when `[mqtt] url` is empty). The password is never here.
public struct MQTTStatus: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable { case connecting, connected, disconnected }
    public var state: State
    /// The broker (`mqtt://host:port`).
    public var url: String
    /// Why the link is down (refused, unreachable, TLS); it is tried again with backoff.
    public var error: String?
    /// Where the states are published and the commands taken (`appliance/<device id>`).
    public var topicPrefix: String
    /// Home Assistant's discovery prefix; absent when discovery is off.
    public var discoveryPrefix: String?
    /// What identifies this device to Home Assistant.
    public var deviceID: String
    /// Connections made since start.
    public var connects: Int

    public init(
        state: State, url: String, error: String? = nil, topicPrefix: String, discoveryPrefix: String?,
        deviceID: String,
        connects: Int = 0
    ) {
        (self.state, self.url, self.error, self.topicPrefix) = (state, url, error, topicPrefix)
        (self.discoveryPrefix, self.deviceID, self.connects) = (discoveryPrefix, deviceID, connects)
    }

    enum CodingKeys: String, CodingKey {
        case state, url, error, topicPrefix, discoveryPrefix
        case deviceID = "deviceId"
        case connects
    }
}
