import ApplianceApp
import ApplianceBase
import ApplianceProtocol
import ArgumentParser
import Encoders
import Engine
import Foundation
import GStreamerKit
import Settings

/// `appliance encoder-trial` (hidden): one candidate's trial encode, run by the daemon and `doctor` in a child
/// process so a driver that crashes or hangs costs that candidate only. Prints the trial as one JSON line.
struct EncoderTrialCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encoder-trial", abstract: "One encoder's trial encode.",
        shouldDisplay: false)

    @Option(name: .long) var pipelinesDir: String
    @Option(name: .long) var name: String
    @Option(name: .long) var width: Int
    @Option(name: .long) var height: Int
    @Option(name: .long) var framerate: Int
    @Option(name: .long) var bitrateKbps: Int
    @Option(name: .long) var keyframeIntervalS: Double
    @Option(name: .long) var speedPreset: String
    @Option(name: .long) var limitS: Int

    func run() throws {
        GStreamer.initialize()
        var video = ApplianceConfig().video
        (video.width, video.height, video.framerate, video.bitrateKbps) = (width, height, framerate, bitrateKbps)
        (video.keyframeIntervalS, video.speedPreset) = (keyframeIntervalS, speedPreset)
        let trial: EncoderChoice.Trial
        do {
            let library = try FragmentLibrary.locate(configured: pipelinesDir)
            trial = EncoderTrial.run(name: name, video: video, library: library, limit: .seconds(limitS))
        } catch {
            trial = EncoderChoice.Trial(name: name, element: name, result: .failed, detail: "\(error)", ms: 0)
        }
        let data = try JSONEncoder().encode(trial)
        print(String(decoding: data, as: UTF8.self))
    }
}
