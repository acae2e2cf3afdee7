import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

extension ONVIFMediaService {
    /// The media service's audio output (ONVIF's two-way audio): the device's speaker, fed by the G.711 µ-law a
    /// client sends on RTSP's backchannel (`Require: www.onvif.org/ver20/backchannel` on the stream URI). Only when
    /// the device has a speaker and RTSP serves; otherwise the lists are empty and a named one is `NoConfig`.
    enum AudioOutput {
        private typealias X = XMLWriter
        private typealias F = ONVIFFacts

        static func respond(
            _ operation: String, facts: ONVIFFacts,
            reply: ([XMLElement]) -> XMLElement
        ) throws(SOAPFault) -> XMLElement {
            let some = { (make: () -> XMLElement) in facts.speaker ? [make()] : [] }
            switch operation {
            case "GetAudioOutputs":
                return reply(some { X.element("trt:AudioOutputs", attributes: [("token", F.audioOutputToken)]) })
            case "GetAudioOutputConfigurations", "GetCompatibleAudioOutputConfigurations":
                return reply(some { output(name: "trt:Configurations") })
            case "GetAudioDecoderConfigurations", "GetCompatibleAudioDecoderConfigurations":
                return reply(some { decoder(name: "trt:Configurations") })
            case "GetAudioOutputConfiguration":
                try requireSpeaker(facts)
                return reply([output(name: "trt:Configuration")])
            case "GetAudioDecoderConfiguration":
                try requireSpeaker(facts)
                return reply([decoder(name: "trt:Configuration")])
            case "GetAudioOutputConfigurationOptions":
                try requireSpeaker(facts)
                return reply([
                    X.element(
                        "trt:Options",
                        [
                            X.element("tt:OutputTokensAvailable", F.audioOutputToken),
                            X.element(
                                "tt:OutputLevelRange",
                                [
                                    X.element("tt:Min", "0"), X.element("tt:Max", "100"),
                                ]),
                        ])
                ])
            case "GetAudioDecoderConfigurationOptions":
                try requireSpeaker(facts)
                return reply([
                    X.element(
                        "trt:Options",
                        [
                            X.element(
                                "tt:G711DecOptions",
                                [
                                    X.element("tt:Bitrate", [X.element("tt:Items", "64")]),
                                    X.element("tt:SampleRateRange", [X.element("tt:Items", "8")]),
                                ])
                        ])
                ])
            default: throw .notImplemented(operation)
            }
        }

        private static func requireSpeaker(_ facts: ONVIFFacts) throws(SOAPFault) {
            guard facts.speaker else {
                throw SOAPFault(.sender, "ter:NoConfig", "this device has no speaker (or RTSP is off)")
            }
        }

        static func output(name: String) -> XMLElement {
            X.element(
                name, attributes: [("token", F.audioOutputToken)],
                [
                    X.element("tt:Name", "speaker"), X.element("tt:UseCount", "1"),
                    X.element("tt:OutputToken", F.audioOutputToken),
                    X.element("tt:SendPrimacy", "www.onvif.org/ver20/HalfDuplex/Auto"),
                    X.element("tt:OutputLevel", "100"),
                ])
        }

        static func decoder(name: String) -> XMLElement {
            X.element(
                name, attributes: [("token", F.audioDecoderToken)],
                [X.element("tt:Name", "g711"), X.element("tt:UseCount", "1")])
        }
    }
}
