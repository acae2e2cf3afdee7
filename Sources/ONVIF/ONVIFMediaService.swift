import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The media service (`trt`, ver10): a profile per channel (the first's `main`, as before channels), each with its
/// camera's video source, its recording's H.264 encoder settings (what RTSP really sends: size, rate, bitrate,
/// keyframe interval, High profile) and, with sound, its AAC; with a speaker, the first profile has its audio output
/// and G.711 decoder (what RTSP's ONVIF backchannel takes); the stream URI is the channel's RTSP mount, the snapshot
/// URI a JPEG of its live picture.
enum ONVIFMediaService {
    private typealias X = XMLWriter
    private typealias F = ONVIFFacts

    package static func respond(_ operation: String, request: XMLTree, facts: ONVIFFacts) throws(SOAPFault)
        -> XMLElement
    {
        let reply = { (children: [XMLElement]) in X.element("trt:\(operation)Response", children) }
        let profiles = facts.profiles
        switch operation {
        case "GetServiceCapabilities":
            return reply([
                X.element(
                    "trt:Capabilities",
                    attributes: [
                        ("SnapshotUri", "true"), ("Rotation", "false"), ("VideoSourceMode", "false"), ("OSD", "false"),
                    ],
                    [
                        X.element(
                            "trt:ProfileCapabilities", attributes: [("MaximumNumberOfProfiles", "\(profiles.count)")]),
                        X.element(
                            "trt:StreamingCapabilities",
                            attributes: [
                                ("RTPMulticast", "false"), ("RTP_TCP", "true"), ("RTP_RTSP_TCP", "true"),
                                ("NonAggregateControl", "false"),
                            ]),
                    ])
            ])
        case "GetProfiles": return reply(profiles.map { profile(facts, $0, name: "trt:Profiles") })
        case "GetProfile": return reply([profile(facts, try named(request, in: facts), name: "trt:Profile")])
        case "GetStreamUri":
            guard let url = facts.streamURL(try named(request, in: facts)) else {
                throw SOAPFault(.receiver, "ter:Action", "the RTSP server is not serving yet")
            }
            return reply([mediaURI(url)])
        case "GetSnapshotUri": return reply([mediaURI(facts.snapshotURL(try named(request, in: facts)))])
        case "GetVideoSources":
            return reply(
                profiles.map {
                    X.element(
                        "trt:VideoSources", attributes: [("token", $0.sourceToken)],
                        [
                            X.element("tt:Framerate", "\($0.video.framerate)"),
                            resolution($0.video, name: "tt:Resolution"),
                        ])
                })
        case "GetVideoSourceConfigurations": return reply(profiles.map { videoSource($0, name: "trt:Configurations") })
        case "GetVideoSourceConfiguration":
            return reply([
                videoSource(try configured(request, \.sourceToken, among: profiles), name: "trt:Configuration")
            ])
        case "GetVideoEncoderConfigurations":
            return reply(profiles.map { videoEncoder($0, name: "trt:Configurations") })
        case "GetVideoEncoderConfiguration":
            return reply([
                videoEncoder(try configured(request, \.encoderToken, among: profiles), name: "trt:Configuration")
            ])
        case "GetAudioSources":
            return reply(
                profiles.compactMap { profile in
                    profile.audio.map {
                        X.element(
                            "trt:AudioSources", attributes: [("token", profile.audioSourceToken)],
                            [X.element("tt:Channels", "\($0.channels)")])
                    }
                })
        case "GetAudioSourceConfigurations":
            return reply(profiles.filter { $0.audio != nil }.map { audioSource($0, name: "trt:Configurations") })
        case "GetAudioEncoderConfigurations":
            return reply(profiles.compactMap { p in p.audio.map { audioEncoder(p, $0, name: "trt:Configurations") } })
        case "GetAudioEncoderConfiguration":
            let sounding = profiles.filter { $0.audio != nil }
            guard !sounding.isEmpty else { throw SOAPFault(.sender, "ter:NoConfig", "this device has no microphone") }
            let chosen = try configured(request, \.audioEncoderToken, among: sounding)
            return reply([audioEncoder(chosen, chosen.audio!, name: "trt:Configuration")])
        default: return try AudioOutput.respond(operation, facts: facts, reply: reply)
        }
    }

    /// The profile a request names (its ProfileToken): one of the channels'.
    private static func named(_ request: XMLTree, in facts: ONVIFFacts) throws(SOAPFault) -> F.Profile {
        let token = request.value("ProfileToken") ?? ""
        guard let profile = facts.profiles.first(where: { $0.token == token }) else { throw .noProfile(token) }
        return profile
    }

    /// The profile whose configuration a request names (its ConfigurationToken, read by `token`); without one,
    /// the first.
    private static func configured(
        _ request: XMLTree, _ token: KeyPath<F.Profile, String>, among profiles: [F.Profile]
    ) throws(SOAPFault) -> F.Profile {
        guard let wanted = request.value("ConfigurationToken"), !wanted.isEmpty else { return profiles[0] }
        guard let profile = profiles.first(where: { $0[keyPath: token] == wanted }) else {
            throw SOAPFault(.sender, "ter:NoConfig", "no configuration \(wanted.prefix(64))")
        }
        return profile
    }

    /// A profile: Name, then the configurations in the schema's order (the speaker's on the first channel's).
    static func profile(_ facts: ONVIFFacts, _ profile: ONVIFFacts.Profile, name: String) -> XMLElement {
        var parts = [
            X.element("tt:Name", profile.channel.isEmpty ? F.profileToken : profile.channel),
            videoSource(profile, name: "tt:VideoSourceConfiguration"),
        ]
        if profile.audio != nil { parts.append(audioSource(profile, name: "tt:AudioSourceConfiguration")) }
        parts.append(videoEncoder(profile, name: "tt:VideoEncoderConfiguration"))
        if let audio = profile.audio {
            parts.append(audioEncoder(profile, audio, name: "tt:AudioEncoderConfiguration"))
        }
        if facts.speaker && profile.channel.isEmpty {
            parts.append(
                X.element(
                    "tt:Extension",
                    [
                        AudioOutput.output(name: "tt:AudioOutputConfiguration"),
                        AudioOutput.decoder(name: "tt:AudioDecoderConfiguration"),
                    ]))
        }
        return X.element(name, attributes: [("token", profile.token), ("fixed", "true")], parts)
    }

    private static func videoSource(_ profile: F.Profile, name: String) -> XMLElement {
        X.element(
            name, attributes: [("token", profile.sourceToken)],
            [
                X.element("tt:Name", profile.sourceToken), X.element("tt:UseCount", "1"),
                X.element("tt:SourceToken", profile.sourceToken),
                X.element(
                    "tt:Bounds",
                    attributes: [
                        ("x", "0"), ("y", "0"), ("width", "\(profile.video.width)"),
                        ("height", "\(profile.video.height)"),
                    ]),
            ])
    }

    private static func videoEncoder(_ profile: F.Profile, name: String) -> XMLElement {
        let video = profile.video
        return X.element(
            name, attributes: [("token", profile.encoderToken)],
            [
                X.element("tt:Name", profile.encoderToken), X.element("tt:UseCount", "1"),
                X.element("tt:Encoding", "H264"),
                resolution(video, name: "tt:Resolution"), X.element("tt:Quality", "5"),
                X.element(
                    "tt:RateControl",
                    [
                        X.element("tt:FrameRateLimit", "\(video.framerate)"), X.element("tt:EncodingInterval", "1"),
                        X.element("tt:BitrateLimit", "\(video.bitrateKbps)"),
                    ]),
                X.element(
                    "tt:H264",
                    [
                        X.element("tt:GovLength", "\(video.keyframeFrames)"),
                        X.element("tt:H264Profile", video.h264Profile),
                    ]),
                multicast(), X.element("tt:SessionTimeout", "PT60S"),
            ])
    }

    private static func audioSource(_ profile: F.Profile, name: String) -> XMLElement {
        X.element(
            name, attributes: [("token", profile.audioSourceToken)],
            [
                X.element("tt:Name", profile.audioSourceToken), X.element("tt:UseCount", "1"),
                X.element("tt:SourceToken", profile.audioSourceToken),
            ])
    }

    private static func audioEncoder(_ profile: F.Profile, _ audio: ONVIFFacts.Audio, name: String) -> XMLElement {
        X.element(
            name, attributes: [("token", profile.audioEncoderToken)],
            [
                X.element("tt:Name", profile.audioEncoderToken), X.element("tt:UseCount", "1"),
                X.element("tt:Encoding", "AAC"),
                X.element("tt:Bitrate", "\(audio.bitrateKbps)"),
                X.element("tt:SampleRate", "\(audio.sampleRate / 1000)"),
                multicast(), X.element("tt:SessionTimeout", "PT60S"),
            ])
    }

    private static func resolution(_ video: ONVIFFacts.Video, name: String) -> XMLElement {
        X.element(name, [X.element("tt:Width", "\(video.width)"), X.element("tt:Height", "\(video.height)")])
    }

    private static func multicast() -> XMLElement {
        X.element(
            "tt:Multicast",
            [
                X.element("tt:Address", [X.element("tt:Type", "IPv4"), X.element("tt:IPv4Address", "0.0.0.0")]),
                X.element("tt:Port", "0"), X.element("tt:TTL", "0"), X.element("tt:AutoStart", "false"),
            ])
    }

    private static func mediaURI(_ url: String) -> XMLElement {
        X.element(
            "trt:MediaUri",
            [
                X.element("tt:Uri", url), X.element("tt:InvalidAfterConnect", "false"),
                X.element("tt:InvalidAfterReboot", "false"),
                X.element("tt:Timeout", "PT0S"),
            ])
    }
}
