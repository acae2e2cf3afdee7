import ApplianceBase
import Engine
import Foundation
import GStreamerKit
import Settings

/// A short, finite encode through the configured fragment, built as the live graph builds it
/// (`FragmentLibrary.videoEncoderValues`): test frames in the graph's caps → encoder fragment → parser → fakesink,
/// counting what comes out of the parser. Blocks until the end of the stream (run it off the cooperative pool).
package enum EncodeTrial {
    package struct Outcome: Sendable {
        package var encoded: Int
        package var elapsedMs: Int
    }

    package static let timeout = ClockTime(seconds: 20)

    /// Test frames in the graph's caps → the configured encoder's fragment → a parser, as the live graph builds it.
    private static func encodedFrames(
        _ video: ApplianceConfig.Video, library: FragmentLibrary, frames: Int
    ) throws -> (source: Element, filter: Element, encoder: Bin, parser: Element) {
        let source = try Element.make("videotestsrc", name: "frames")
        source.set("num-buffers", int: frames)
        let filter = try Element.make("capsfilter", name: "raw-caps")
        filter.set("caps", try Caps(video.rawCaps))
        let encoder = try library.makeBin(
            "encoders", video.encoder, FragmentLibrary.videoEncoderValues(video), binName: "video-encoder")
        let parser = try Element.make("h264parse", name: "video-parse")
        return (source, filter, encoder, parser)
    }

    package static func video(_ video: ApplianceConfig.Video, library: FragmentLibrary, frames: Int) throws -> Outcome {
        let pipeline = Pipeline(name: "doctor-video")
        let (source, filter, encoder, parser) = try encodedFrames(video, library: library, frames: frames)
        return try run(pipeline, [source, filter, encoder, parser])
    }

    /// The video trial, decoded again (`avdec_h264`): how many frames come back, and their size. The encoder
    /// choice's trial (`EncoderTrial`).
    package static func decoded(
        _ video: ApplianceConfig.Video, library: FragmentLibrary, frames: Int, timeout: Duration
    ) throws -> EncoderTrial.Measured {
        let pipeline = Pipeline(name: "encoder-trial")
        let (source, filter, encoder, parser) = try encodedFrames(video, library: library, frames: frames)
        try source.set("pattern", string: "ball")
        let decoder = try Element.make("avdec_h264", name: "video-decode")
        let sink = try Element.make("fakesink", name: "sink")
        sink.set("sync", false)
        let chain = [source, filter, encoder, parser, try CaptureGraph.encodedFormat(), decoder, sink]
        try pipeline.add(chain)
        try Element.link(chain)
        let count = Locked(0)
        let caps = Locked<(Int, Int)>((0, 0))
        let firstFrameCPU = Locked<Int?>(nil)
        let pad = sink.staticPad("sink")
        pad?.addProbe(.buffer) { _ in
            let first = count.withLock { n -> Bool in
                n += 1
                return n == 1
            }
            if first, let current = pad?.currentCaps {
                firstFrameCPU.withLock { $0 = processCPUMicroseconds() }
                caps.withLock { $0 = (current.int("width") ?? 0, current.int("height") ?? 0) }
            }
            return .ok
        }
        let started = ContinuousClock.now
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        try pipeline.runToEnd(timeout: ClockTime(seconds: seconds))
        let (width, height) = caps.withLock { $0 }
        let decoded = count.withLock { $0 }
        // From the first frame out to the last: the pipeline's and the encoder's set-up (most of a short trial's CPU
        // time: 1,087 ms for 10 frames of 320x180 in the lab's emulated CPU) is left out.
        let perFrame = firstFrameCPU.withLock { $0 }.flatMap { first in
            decoded > 1 ? Double(processCPUMicroseconds() - first) / 1000 / Double(decoded - 1) : nil
        }
        return EncoderTrial.Measured(
            decoded: decoded, width: width, height: height,
            ms: Int((ContinuousClock.now - started) / .milliseconds(1)), cpuMsPerFrame: perFrame)
    }

    /// This process's CPU time so far (user and system, every thread), in microseconds.
    private static func processCPUMicroseconds() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func microseconds(_ t: timeval) -> Int { Int(t.tv_sec) * 1_000_000 + Int(t.tv_usec) }
        return microseconds(usage.ru_utime) + microseconds(usage.ru_stime)
    }

    /// One AAC frame holds 1024 samples: `buffers` buffers of 1024 samples each make as many frames.
    package static func audio(_ audio: ApplianceConfig.Audio, library: FragmentLibrary, buffers: Int) throws -> Outcome
    {
        let pipeline = Pipeline(name: "doctor-audio")
        let source = try Element.make("audiotestsrc", name: "tone")
        source.set("num-buffers", int: buffers)
        source.set("samplesperbuffer", int: 1024)
        let convert = try Element.make("audioconvert", name: "audio-convert")
        let resample = try Element.make("audioresample", name: "audio-resample")
        let filter = try Element.make("capsfilter", name: "audio-caps")
        filter.set("caps", try Caps("audio/x-raw,rate=\(audio.rate),channels=\(audio.channels)"))
        let encoder = try library.makeBin(
            "encoders", "aac", FragmentLibrary.audioEncoderValues(audio), binName: "audio-encoder")
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
