import GStreamerKit
import Settings

/// `[audio] source = "camera"`: the recording's sound is the shown camera's. Each `rtsp` camera decodes its sound
/// to the microphone's format; the one shown hands it to the microphone's appsrc (`pipelines/sources/
/// audio-camera.gst`, mixed onto a live silence), the others to nothing. The switcher calls `follow` each time the
/// shown source changes, so the sound follows a switch, a failure (the filler is silent) and a take-back.
package final class CameraSound: Sendable {
    private let input: Element
    private let cameras: [(pad: Pad, source: ReceivedSource)]

    /// The raw format the cameras' sound is decoded to: the microphone chain's.
    static func format(_ audio: ApplianceConfig.Audio) -> String {
        "audio/x-raw,format=S16LE,layout=interleaved,rate=\(audio.rate),channels=\(audio.channels)"
    }

    /// `microphone`: the bin made from audio-camera.gst (its appsrc is `camera-sound`).
    init(microphone: Bin, cameras slots: [CameraSlot], audio: ApplianceConfig.Audio) throws {
        guard let input = microphone.element(named: "camera-sound") else {
            throw GStreamerError(
                element: "microphone", message: "sources/audio-camera.gst has no appsrc named camera-sound")
        }
        self.input = input
        cameras = slots.compactMap { slot in slot.network.map { (slot.selectorPad, $0) } }
        for camera in cameras { camera.source.carrySound(format: Self.format(audio)) }
    }

    /// The selector now shows `pad`: its camera's sound goes to the microphone, every other camera's nowhere.
    func follow(_ pad: Pad) {
        for camera in cameras { camera.source.sendSound(to: camera.pad === pad ? input : nil) }
    }
}
