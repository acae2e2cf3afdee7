import ApplianceBase
import ApplianceProtocol
import Foundation
import Settings

/// What the device tells an ONVIF client, read fresh for each request from the config, `status` and the network:
/// its names, the stream it really sends (size, rate, bitrate, keyframe interval, sound) and where to fetch it, and
/// the states its events report. `host` is the address the client reached (its Host header): the URIs handed
/// back use it, so they work from wherever the client is.
struct ONVIFFacts: Sendable {
    package struct Video: Sendable, Equatable {
        package var width: Int, height: Int, framerate: Int, bitrateKbps: Int, keyframeFrames: Int, encoder: String

        /// The profile the encoder's fragment gives: x264's asks for High, openh264 makes constrained baseline; the
        /// hardware ones' defaults are Main or High (High is what the fragments' players are told to expect).
        var h264Profile: String { encoder == "openh264" ? "Baseline" : "High" }
    }

    package struct Audio: Sendable, Equatable {
        package var bitrateKbps: Int, sampleRate: Int, channels: Int
    }

    /// A media profile: one per channel, each with its own video source, encoder, stream and snapshot. The first
    /// channel's has the tokens a device had before channels (`main`, `camera`, `h264`), so clients set up then keep
    /// their entities; another's carry its name.
    package struct Profile: Sendable, Equatable {
        package var channel: String
        package var token: String
        /// The video source's token and its configuration's.
        package var sourceToken: String
        package var encoderToken: String
        package var video: Video
        /// The sound it records (then the AAC encoder and the microphone's source are in it).
        package var audio: Audio?
        /// Its RTSP mount's path (`[rtsp] path`, or `path/NAME` for a channel after the first).
        var rtspPath: String
        /// `/live.jpg`, with `?channel=NAME` after the first.
        var snapshotPath: String

        /// Its sound's source and encoder tokens (the first's fixed, another's with its name).
        var audioSourceToken: String { suffixed(ONVIFFacts.audioSourceToken) }
        var audioEncoderToken: String { suffixed(ONVIFFacts.audioEncoderToken) }
        private func suffixed(_ token: String) -> String { channel.isEmpty ? token : "\(token)-\(channel)" }
    }

    package var name: String
    package var serial: String
    package var host: String
    package var webPort: Int
    /// The dashboard speaks HTTPS (`[web] tls`): its snapshot is an https:// URL.
    package var servesTLS = false
    /// The request came over HTTPS: the services' addresses are https:// too, so that a client that signs with its
    /// password in the clear (PasswordText) keeps to TLS.
    package var requestOverTLS = false
    package var interfaces: [NetworkInterface]
    package var video: Video
    package var audio: Audio?
    /// A speaker that clients may talk to over RTSP's backchannel (ONVIF's audio output): there is one and RTSP serves.
    package var speaker = false
    package var rtspPort: Int?
    /// `[rtsp] tls`: the stream URI is rtsps://.
    package var rtspTLS = false
    var rtspPath: String
    package var recording: Bool
    package var motion: Bool
    /// The profiles after the first channel's (`profile` is the first's).
    package var otherProfiles: [Profile] = []

    package static let manufacturer = "appliance"
    package static let model = "appliance recorder"
    package static let hardware = "appliance"
    /// The first channel's profile, source and configuration: the tokens are fixed so clients' entities stay the same.
    static let profileToken = "main", videoSourceToken = "camera", videoSourceConfigurationToken = "camera",
        videoEncoderToken = "h264", audioSourceToken = "microphone", audioEncoderToken = "aac",
        audioOutputToken = "speaker", audioDecoderToken = "g711"

    package var mac: String? { NetworkInterface.primary(interfaces)?.mac }
    package var hostName: String { ProcessInfo.processInfo.hostName }
    package var base: String { "http://\(HostAddress.shown(host))" + (webPort == 80 ? "" : ":\(webPort)") }
    var serviceBase: String { requestOverTLS ? base.replacingOccurrences(of: "http://", with: "https://") : base }
    var deviceServiceURL: String { serviceBase + "/onvif/device_service" }
    var mediaServiceURL: String { serviceBase + "/onvif/media_service" }
    var eventsServiceURL: String { serviceBase + "/onvif/events_service" }
    /// The SOAP services stay on plain HTTP for a client that came that way, which the web server lets through for
    /// them (NVRs speak ONVIF over HTTP, with its own digest login); the snapshot is a picture, content that is only
    /// served over HTTPS when the
    /// dashboard speaks it.
    func snapshotURL(_ profile: Profile) -> String {
        (servesTLS ? base.replacingOccurrences(of: "http://", with: "https://") : base) + profile.snapshotPath
    }
    func streamURL(_ profile: Profile) -> String? {
        rtspPort.map { "\(rtspTLS ? "rtsps" : "rtsp")://\(HostAddress.shown(host)):\($0)/\(profile.rtspPath)" }
    }

    /// The first channel's profile: the one a device had before channels.
    var profile: Profile {
        Profile(
            channel: "", token: Self.profileToken, sourceToken: Self.videoSourceToken,
            encoderToken: Self.videoEncoderToken, video: video, audio: audio, rtspPath: rtspPath,
            snapshotPath: "/live.jpg")
    }

    /// Every channel's profile, the first's first.
    var profiles: [Profile] { [profile] + otherProfiles }

    /// The WS-Discovery scopes: profile, kind, and name, hardware and MAC as Home Assistant and UniFi read them (the
    /// value is what follows the last `/`, so a name's slashes and spaces are escaped).
    package var scopes: [String] {
        let escape = { (text: String) in
            text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-_.~")))
                ?? text
        }
        var scopes = [
            "onvif://www.onvif.org/Profile/Streaming", "onvif://www.onvif.org/type/video_encoder",
            "onvif://www.onvif.org/name/\(escape(name))", "onvif://www.onvif.org/hardware/\(Self.hardware)",
            "onvif://www.onvif.org/location/",
        ]
        if audio != nil { scopes.insert("onvif://www.onvif.org/type/audio_encoder", at: 2) }
        if let mac { scopes.append("onvif://www.onvif.org/mac/\(mac)") }
        return scopes
    }
}

extension ONVIFFacts {
    /// Facts from the config and a `status` report, for a client that reached `host`.
    /// `channels`: the views of the config of the channels after the first (`ApplianceConfig.forChannel`).
    package init(
        config: ApplianceConfig, status: StatusReport, host: String, webPort: Int, serial: String,
        interfaces: [NetworkInterface], channels: [ApplianceConfig] = []
    ) {
        let v = config.video
        name = config.onvif.name.isEmpty ? ProcessInfo.processInfo.hostName : config.onvif.name
        self.serial = serial
        self.host = host
        self.webPort = webPort
        servesTLS = config.web.servesTLS
        self.interfaces = interfaces
        video = Video(
            width: status.width, height: status.height, framerate: status.framerate, bitrateKbps: v.bitrateKbps,
            keyframeFrames: max(1, Int((v.keyframeIntervalS * Double(status.framerate)).rounded())),
            encoder: status.encoder)
        audio =
            status.audioSource == "none"
            ? nil
            : Audio(
                bitrateKbps: config.audio.bitrateKbps, sampleRate: config.audio.rate, channels: config.audio.channels)
        rtspPort = status.rtsp?.url.flatMap { URLComponents(string: $0)?.port }
        speaker = status.speaker != nil && rtspPort != nil
        rtspTLS = config.rtsp.tls
        rtspPath = config.rtsp.path
        recording = status.recording != nil
        motion = status.motion?.active ?? false
        otherProfiles = channels.compactMap { view in
            view.channels.first.map { Self.profile(of: $0, view: view, status: status, rtspPath: config.rtsp.path) }
        }
    }

    /// A channel's profile after the first's: its picture as `status` reports it (what it really sends), its
    /// bitrate and keyframe spacing from its config; tokens from its name.
    static func profile(
        of channel: ApplianceConfig.Channel, view: ApplianceConfig, status: StatusReport, rtspPath: String
    ) -> Profile {
        let reported = status.channels.first { $0.name == channel.name }
        let framerate = reported?.framerate ?? view.video.framerate
        let video = Video(
            width: reported?.width ?? view.video.width, height: reported?.height ?? view.video.height,
            framerate: framerate, bitrateKbps: view.video.bitrateKbps,
            keyframeFrames: max(1, Int((view.video.keyframeIntervalS * Double(framerate)).rounded())),
            encoder: reported?.encoder ?? view.video.encoder)
        let token = channel.name == profileToken ? "channel-\(channel.name)" : channel.name
        let query = channel.name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return Profile(
            channel: channel.name, token: token, sourceToken: "\(videoSourceToken)-\(channel.name)",
            encoderToken: "\(videoEncoderToken)-\(channel.name)", video: video,
            audio: view.audio.source == "none"
                ? nil
                : Audio(
                    bitrateKbps: view.audio.bitrateKbps, sampleRate: view.audio.rate, channels: view.audio.channels),
            rtspPath: "\(rtspPath)/\(channel.name)",
            snapshotPath: "/live.jpg?channel=\(query)")
    }
}
