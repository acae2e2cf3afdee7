import ApplianceBase
import ApplianceProtocol
import Engine
import GStreamerKit
import Logging
import ServiceLifecycle

/// Watches the live graph: its bus (messages arrive from the bus thread, see `BusReader`) and the cameras whose
/// stream ended by itself. Errors are logged, kept for status and published; an error from inside a camera's bin
/// (`/appliance/camera-<name>/…`) or a camera's end of stream tells the camera switcher that camera failed, so the
/// output moves on without it; an error from the microphone stops its source, releasing the sound device.
struct GraphWatcher: Service, CustomStringConvertible {
    var description: String { "GraphWatcher" }
    let graph: CaptureGraph
    let events: EventHub
    let health: Health
    let logger: Logger
    let cameras: CameraSwitcher
    let recorder: Recorder

    func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await message in graph.busReader.messages.cancelOnGracefulShutdown() { await handle(message) }
            }
            group.addTask {
                for await camera in graph.cameraEnded.cancelOnGracefulShutdown() {
                    cameras.cameraFailed(camera, reason: "its stream ended")
                }
            }
        }
    }

    private func handle(_ message: Message) async {
        switch message {
        case .error(let error):
            health.noteError(error.description)
            logger.error("gstreamer: \(error.description)")
            events.publish(.error(PipelineError(source: error.element, message: error.message)))
            if let camera = Self.camera(in: error.element) {
                cameras.cameraFailed(camera, reason: error.message)
            }
            if let bin = Self.topBin(of: error.element), bin.hasPrefix("video-encoder") {
                graph.encoderChain?.noteError(bin: bin, message: error.message)
            }
            if Self.isMicrophone(error.element) {
                let graph = graph
                if (try? await blocking { graph.releaseMicrophone() }) == true {
                    logger.error(
                        """
                        microphone failed: \(error.message); its device is released and recording goes on without \
                        sound
                        """
                    )
                }
            }
            // A recording bin's file cannot be written (ENOSPC, storage gone): the recorder ends that file.
            if let bin = Self.topBin(of: error.element), bin.hasPrefix(RecordingBin.namePrefix) {
                await recorder.writeFailed(
                    bin: String(bin), reason: [error.message, error.debug].compactMap { $0 }.joined(separator: ": "))
            }
        case .warning(let warning):
            logger.warning("gstreamer: \(warning.description)")
        case .element(_, "level", let fields):
            graph.sound?.receive(levelFields: fields)
        default:
            break
        }
    }

    /// The bin right under the pipeline that a message's source path is in: `/appliance/<bin>/…` → `<bin>`.
    static func topBin(of path: String) -> String? {
        let parts = path.split(separator: "/")
        return parts.count >= 2 ? String(parts[1]) : nil
    }

    /// Whether a message's source path is inside the microphone's source bin (`/appliance/microphone/…`).
    static func isMicrophone(_ path: String) -> Bool { topBin(of: path) == "microphone" }

    /// The camera a message's source path belongs to (the filler is not a camera).
    static func camera(in path: String) -> String? {
        guard let bin = topBin(of: path), bin.hasPrefix("camera-"), bin != "camera-filler" else { return nil }
        return String(bin.dropFirst("camera-".count))
    }
}
