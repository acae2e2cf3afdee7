import ApplianceBase
import Foundation
import GStreamerKit

/// Looks inside a recorded file with a short-lived GStreamer pipeline: duration and one decoded frame
/// (for thumbnails of recovered files).
public enum MediaInspector {
    public struct Report: Sendable {
        public var durationMs: Int?
        public var frame: Sample?
        public var width: Int?
        public var height: Int?
    }

    /// Decodes the file's first video stream and returns the frame at `offset` (or the last one before it for a
    /// shorter file) with the container's duration. Throws when the file cannot be demuxed or decoded.
    public static func inspect(path: String, offset: ClockTime) throws -> Report {
        let description = """
            filesrc location=\(Bin.quoted(path)) ! qtdemux name=demux demux.video_0 ! queue ! h264parse ! avdec_h264 \
            ! videoconvert ! video/x-raw,format=I420 ! appsink name=frames sync=false max-buffers=4
            """
        let bin = try Bin.parse(description, name: "inspect", label: path, ghostUnlinkedPads: false)
        let pipeline = Pipeline(name: "inspector")
        try pipeline.add(bin)
        defer { _ = try? pipeline.setState(.null) }
        guard let sink = pipeline.element(named: "frames") else {
            throw GStreamerError(element: path, message: "no appsink")
        }
        try pipeline.setState(.paused)
        let (state, ok) = pipeline.state(timeout: ClockTime(seconds: 10))
        guard ok, state == .paused else {
            throw pipeline.popError(timeout: ClockTime(milliseconds: 100))
                ?? GStreamerError(element: path, message: "cannot read the file")
        }
        var report = Report(durationMs: pipeline.queryDuration().map { Int($0.milliseconds) })
        try pipeline.setState(.playing)
        var last: Sample?
        while let sample = AppSink.pull(sink, timeout: ClockTime(seconds: 5)) {
            last = sample
            if let pts = sample.pts, pts >= offset { break }
        }
        report.frame = last
        report.width = last?.caps?.int("width")
        report.height = last?.caps?.int("height")
        return report
    }
}
