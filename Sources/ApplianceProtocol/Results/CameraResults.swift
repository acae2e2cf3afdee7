/// What `switch` answers.
public struct SwitchResult: Codable, Sendable, Equatable {
    public var active: String?
    public var previous: String?
    public var switched: Bool
    /// From the request to the new camera's first frame at the encoder input (absent if not seen within a second).
    public var latencyMs: Double?

    public init(active: String?, previous: String?, switched: Bool, latencyMs: Double? = nil) {
        (self.active, self.previous, self.switched, self.latencyMs) = (active, previous, switched, latencyMs)
    }
}

/// One configured camera in `cameras`.
public struct CameraReport: Codable, Sendable, Equatable {
    public var name: String
    /// `v4l2`, `test`, `pipeline` or `rtsp`.
    public var source: String
    /// A V4L2 camera's node; an `rtsp` camera's URL (never with credentials).
    public var device: String?
    /// `active`, `standby`, `starting`, `missing` or `error`.
    public var state: String
    public var detail: String?
    public var alwaysOn: Bool
    /// A V4L2 camera's capture mode since it last started, e.g. `YUY2 1280x720@30` (absent before its first start);
    /// an `rtsp` camera's stream as it comes, e.g. `H264 1920x1080@25`.
    public var mode: String?
    /// Why that mode: the configured one, the smallest reaching the rate, or a shortfall (frames repeated); for an
    /// `rtsp` camera the decoder, e.g. `decoded by avdec_h264`.
    public var modeReason: String?
    /// Frames the camera delivered since the daemon started, after its rate was kept (thinned or repeated).
    public var framesIn: UInt64?
    /// Of those, frames repeated because the camera's next frame was late or missing: a camera (or a loaded
    /// machine) that cannot keep the configured rate shows here, not as a gap in the file.
    public var framesRepeated: UInt64?
    /// The channel that records it (`[[channel]]`).
    public var channel: String?

    public init(
        name: String, source: String, device: String?, state: String, detail: String?, alwaysOn: Bool,
        mode: String? = nil, modeReason: String? = nil, framesIn: UInt64? = nil, framesRepeated: UInt64? = nil
    ) {
        (self.name, self.source, self.device, self.state) = (name, source, device, state)
        (self.detail, self.alwaysOn, self.mode, self.modeReason) = (detail, alwaysOn, mode, modeReason)
        (self.framesIn, self.framesRepeated) = (framesIn, framesRepeated)
    }
}

/// A capture device that GStreamer's device monitor sees.
public struct DeviceInfo: Codable, Sendable, Equatable {
    public var name: String
    /// "Video/Source", "Audio/Source", …
    public var deviceClass: String
    public var caps: String
    /// Device node or card identifier when the provider gives one (e.g. /dev/video0).
    public var path: String?

    public init(name: String, deviceClass: String, caps: String, path: String?) {
        (self.name, self.deviceClass, self.caps, self.path) = (name, deviceClass, caps, path)
    }
}

/// What `cameras` answers.
public struct CamerasReport: Codable, Sendable, Equatable {
    public var active: String?
    public var cameras: [CameraReport]
    public var devices: [DeviceInfo]

    public init(active: String?, cameras: [CameraReport], devices: [DeviceInfo]) {
        (self.active, self.cameras, self.devices) = (active, cameras, devices)
    }
}

/// `cameras.discover`: the account to ask the cameras for their streams with (none: only who answers), and how
/// long to listen for answers.
public struct CameraDiscoveryRequest: Sendable, Equatable {
    public static let defaultSeconds = 3.0
    public var username: String?
    public var password: Secret?
    public var seconds: Double

    public init(username: String? = nil, password: Secret? = nil, seconds: Double = defaultSeconds) {
        (self.username, self.password, self.seconds) = (username, password, seconds)
    }
}

/// The ONVIF devices that answered a WS-Discovery probe, by address.
public struct CameraDiscovery: Codable, Sendable, Equatable {
    public var cameras: [DiscoveredCamera]
    /// The interfaces probed from.
    public var interfaces: [String]

    public init(cameras: [DiscoveredCamera], interfaces: [String]) {
        (self.cameras, self.interfaces) = (cameras, interfaces)
    }
}

public struct DiscoveredCamera: Codable, Sendable, Equatable {
    /// Its device service address (the probe match's first XAddr).
    public var address: String
    /// Its WS-Discovery endpoint (a urn:uuid: that stays across restarts).
    public var endpoint: String
    /// Its name and hardware from its scopes (onvif://www.onvif.org/name/…, …/hardware/…).
    public var name: String?
    public var hardware: String?
    /// The stream of each of its media profiles (asked with the account given; empty without one).
    public var streams: [DiscoveredStream]
    /// Why its streams could not be had (a refused account, no answer), when they could not.
    public var error: String?

    public init(
        address: String, endpoint: String, name: String? = nil, hardware: String? = nil,
        streams: [DiscoveredStream] = [],
        error: String? = nil
    ) {
        (self.address, self.endpoint, self.name, self.hardware) = (address, endpoint, name, hardware)
        (self.streams, self.error) = (streams, error)
    }
}

public struct DiscoveredStream: Codable, Sendable, Equatable {
    public var profile: String
    /// The RTSP address, as `url` of an `rtsp` camera takes it (any user or password the camera put in it removed).
    public var uri: String
    public var encoding: String?
    public var width: Int?
    public var height: Int?

    public init(profile: String, uri: String, encoding: String? = nil, width: Int? = nil, height: Int? = nil) {
        (self.profile, self.uri, self.encoding, self.width, self.height) = (profile, uri, encoding, width, height)
    }
}
