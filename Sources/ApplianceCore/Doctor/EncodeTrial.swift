import Foundation
import GStreamerKit

/// A short, finite encode through the configured fragment, built as the live graph builds it
/// (`FragmentLibrary.videoEncoderValues`): test frames in the graph's caps → encoder fragment → parser → fakesink,
/// counting what comes out of the parser. Blocks until the end of the stream (run it off the cooperative pool).
enum EncodeTrial {
    struct Outcome: Sendable {
        var encoded: Int
        var elapsedMs: Int
    }

    static let timeout = ClockTime(seconds: 20)

    static func video(_ video: ApplianceConfig.Video, library: FragmentLibrary, frames: Int) throws -> Outcome {
        let pipeline = Pipeline(name: "doctor-video")
        let source = try Element.make("videotestsrc", name: "frames")
        source.set("num-buffers", int: frames)
        let filter = try Element.make("capsfilter", name: "raw-caps")
        filter.set("caps", try Caps("video/x-raw,format=I420,width=\(video.width),height=\(video.height),framerate=\(video.framerate)/1,pixel-aspect-ratio=1/1"))
        let encoder = try library.makeBin("encoders", video.encoder, FragmentLibrary.videoEncoderValues(video), binName: "video-encoder")
        let parser = try Element.make("h264parse", name: "video-parse")
        return try run(pipeline, [source, filter, encoder, parser])
    }

    /// One AAC frame holds 1024 samples: `buffers` buffers of 1024 samples each make as many frames.
    static func audio(_ audio: ApplianceConfig.Audio, library: FragmentLibrary, buffers: Int) throws -> Outcome {
        let pipeline = Pipeline(name: "doctor-audio")
        let source = try Element.make("audiotestsrc", name: "tone")
        source.set("num-buffers", int: buffers)
        source.set("samplesperbuffer", int: 1024)
        let convert = try Element.make("audioconvert", name: "audio-convert")
        let resample = try Element.make("audioresample", name: "audio-resample")
        let filter = try Element.make("capsfilter", name: "audio-caps")
        filter.set("caps", try Caps("audio/x-raw,rate=\(audio.rate),channels=\(audio.channels)"))
        let encoder = try library.makeBin("encoders", "aac", FragmentLibrary.audioEncoderValues(audio), binName: "audio-encoder")
        let parser = try Element.make("aacparse", name: "audio-parse")
        return try run(pipeline, [source, convert, resample, filter, encoder, parser])
    }

    private static func run(_ pipeline: Pipeline, _ chain: [Element]) throws -> Outcome {
        let sink = try Element.make("fakesink", name: "sink")
        sink.set("sync", false)
        try pipeline.add(chain + [sink])
        try Element.link(chain + [sink])
        let count = Locked(0)
        sink.staticPad("sink")?.addProbe(.buffer) { _ in
            count.withLock { $0 += 1 }
            return .ok
        }
        let started = ContinuousClock.now
        try pipeline.runToEnd(timeout: timeout)
        let elapsed = ContinuousClock.now - started
        return Outcome(encoded: count.withLock { $0 }, elapsedMs: Int(elapsed / .milliseconds(1)))
    }
}
