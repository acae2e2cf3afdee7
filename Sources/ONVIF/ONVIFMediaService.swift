import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The media service (`trt`, ver10): one profile, `main`, with the camera's video source, the recording's H.264
/// encoder settings (what RTSP really sends: size, rate, bitrate, keyframe interval, High profile) and, with a
/// microphone, its AAC; with a speaker, its audio output and G.711 decoder (what RTSP's ONVIF backchannel takes);
/// the stream URI is the RTSP mount, the snapshot URI a JPEG of the live picture.
enum ONVIFMediaService {
    private typealias X = XMLWriter
    private typealias F = ONVIFFacts

    package static func respond(_ operation: String, request: XMLTree, facts: ONVIFFacts) throws(SOAPFault)
        -> XMLElement
    {
        let reply = { (children: [XMLElement]) in X.element("trt:\(operation)Response", children) }
        switch operation {
        case "GetServiceCapabilities":
            return reply([
                X.element(
                    "trt:Capabilities",
                    attributes: [
                        ("SnapshotUri", "true"), ("Rotation", "false"), ("VideoSourceMode", "false"), ("OSD", "false"),
                    ],
                    [
                        X.element("trt:ProfileCapabilities", attributes: [("MaximumNumberOfProfiles", "1")]),
                        X.element(
                            "trt:StreamingCapabilities",
                            attributes: [
                                ("RTPMulticast", "false"), ("RTP_TCP", "true"), ("RTP_RTSP_TCP", "true"),
                                ("NonAggregateControl", "false"),
                            ]),
                    ])
            ])
        case "GetProfiles": return reply([profile(facts, name: "trt:Profiles")])
        case "GetProfile":
            try checkProfile(request)
            return reply([profile(facts, name: "trt:Profile")])
        case "GetStreamUri":
            try checkProfile(request)
            guard let url = facts.streamURL else {
                throw SOAPFault(.receiver, "ter:Action", "the RTSP server is not serving yet")
            }
            return reply([mediaURI(url)])
        case "GetSnapshotUri":
            try checkProfile(request)
            return reply([mediaURI(facts.snapshotURL)])
        case "GetVideoSources":
            return reply([
                X.element(
                    "trt:VideoSources", attributes: [("token", F.videoSourceToken)],
                    [
                        X.element("tt:Framerate", "\(facts.video.framerate)"),
                        resolution(facts.video, name: "tt:Resolution"),
                    ])
            ])
        case "GetVideoSourceConfigurations": return reply([videoSource(facts, name: "trt:Configurations")])
        case "GetVideoSourceConfiguration": return reply([videoSource(facts, name: "trt:Configuration")])
        case "GetVideoEncoderConfigurations": return reply([videoEncoder(facts.video, name: "trt:Configurations")])
        case "GetVideoEncoderConfiguration": return reply([videoEncoder(facts.video, name: "trt:Configuration")])
        case "GetAudioSources":
            return reply(
                facts.audio.map { audio in
                    [
                        X.element(
                            "trt:AudioSources", attributes: [("token", F.audioSourceToken)],
                            [
                                X.element("tt:Channels", "\(audio.channels)")
                            ])
                    ]
                } ?? [])
        case "GetAudioSourceConfigurations":
            return reply(facts.audio == nil ? [] : [audioSource(name: "trt:Configurations")])
        case "GetAudioEncoderConfigurations":
            return reply(facts.audio.map { [audioEncoder($0, name: "trt:Configurations")] } ?? [])
        case "GetAudioEncoderConfiguration":
            guard let audio = facts.audio else {
                throw SOAPFault(.sender, "ter:NoConfig", "this device has no microphone")
            }
            return reply([audioEncoder(audio, name: "trt:Configuration")])
        default: return try AudioOutput.respond(operation, facts: facts, reply: reply)
        }
    }

    /// A request naming a profile must name `main`.
    private static func checkProfile(_ request: XMLTree) throws(SOAPFault) {
        let token = request.value("ProfileToken") ?? ""
        guard token == F.profileToken else { throw .noProfile(token) }
    }

    /// The profile: Name, then the configurations in the schema's order.
    package static func profile(_ facts: ONVIFFacts, name: String) -> XMLElement {
        var parts = [X.element("tt:Name", "main"), videoSource(facts, name: "tt:VideoSourceConfiguration")]
        if facts.audio != nil { parts.append(audioSource(name: "tt:AudioSourceConfiguration")) }
        parts.append(videoEncoder(facts.video, name: "tt:VideoEncoderConfiguration"))
        if let audio = facts.audio { parts.append(audioEncoder(audio, name: "tt:AudioEncoderConfiguration")) }
        if facts.speaker {
            parts.append(
                X.element(
                    "tt:Extension",
                    [
                        AudioOutput.output(name: "tt:AudioOutputConfiguration"),
                        AudioOutput.decoder(name: "tt:AudioDecoderConfiguration"),
                    ]))
        }
        return X.element(name, attributes: [("token", F.profileToken), ("fixed", "true")], parts)
    }

    private static func videoSource(_ facts: ONVIFFacts, name: String) -> XMLElement {
        X.element(
            name, attributes: [("token", F.videoSourceConfigurationToken)],
            [
                X.element("tt:Name", "camera"), X.element("tt:UseCount", "1"),
                X.element("tt:SourceToken", F.videoSourceToken),
                X.element(
                    "tt:Bounds",
                    attributes: [
                        ("x", "0"), ("y", "0"), ("width", "\(facts.video.width)"), ("height", "\(facts.video.height)"),
                    ]),
            ])
    }

    private static func videoEncoder(_ video: ONVIFFacts.Video, name: String) -> XMLElement {
        X.element(
            name, attributes: [("token", F.videoEncoderToken)],
            [
                X.element("tt:Name", "h264"), X.element("tt:UseCount", "1"), X.element("tt:Encoding", "H264"),
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

    private static func audioSource(name: String) -> XMLElement {
        X.element(
            name, attributes: [("token", F.audioSourceToken)],
            [
                X.element("tt:Name", "microphone"), X.element("tt:UseCount", "1"),
                X.element("tt:SourceToken", F.audioSourceToken),
            ])
    }

    private static func audioEncoder(_ audio: ONVIFFacts.Audio, name: String) -> XMLElement {
        X.element(
            name, attributes: [("token", F.audioEncoderToken)],
            [
                X.element("tt:Name", "aac"), X.element("tt:UseCount", "1"), X.element("tt:Encoding", "AAC"),
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
