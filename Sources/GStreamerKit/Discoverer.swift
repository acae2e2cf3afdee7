import CGStreamer
import Foundation

/// What GstDiscoverer finds in a media file.
public struct MediaInfo: Sendable {
    public struct Video: Sendable {
        public var codec: String
        public var width: Int
        public var height: Int
        public var framerate: Double
    }

    public struct Audio: Sendable {
        public var codec: String
        public var channels: Int
        public var sampleRate: Int
    }

    public var duration: ClockTime?
    public var video: [Video]
    public var audio: [Audio]
}

/// Inspects files with GstDiscoverer (container, streams, duration) without decoding them.
public enum Discoverer {
    public static func inspect(path: String, timeout: ClockTime = ClockTime(seconds: 10)) throws -> MediaInfo {
        GStreamer.initialize()
        var error: UnsafeMutablePointer<GError>?
        guard let discoverer = gst_discoverer_new(GstClockTime(timeout.nanoseconds), &error) else {
            throw GStreamerError.consume(error, element: "discoverer", fallback: "cannot create a discoverer")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(discoverer)) }
        let uri = URL(fileURLWithPath: path).absoluteString
        guard let info = gst_discoverer_discover_uri(discoverer, uri, &error) else {
            throw GStreamerError.consume(error, element: path, fallback: "cannot inspect the file")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(info)) }
        if let error { g_error_free(error) }
        let result = gst_discoverer_info_get_result(info)
        guard result == GST_DISCOVERER_OK else {
            throw GStreamerError(
                element: path, message: "not a playable media file (discoverer result \(result.rawValue))")
        }
        let duration = UInt64(gst_discoverer_info_get_duration(info))
        var media = MediaInfo(duration: duration == 0 ? nil : ClockTime.from(duration), video: [], audio: [])
        let videos = gst_discoverer_info_get_video_streams(info)
        defer { gst_discoverer_stream_info_list_free(videos) }
        forEach(videos) { stream in
            let video = stream
            let num = gst_discoverer_video_info_get_framerate_num(video)
            let den = gst_discoverer_video_info_get_framerate_denom(video)
            media.video.append(
                .init(
                    codec: codec(of: stream), width: Int(gst_discoverer_video_info_get_width(video)),
                    height: Int(gst_discoverer_video_info_get_height(video)),
                    framerate: den == 0 ? 0 : Double(num) / Double(den)))
        }
        let audios = gst_discoverer_info_get_audio_streams(info)
        defer { gst_discoverer_stream_info_list_free(audios) }
        forEach(audios) { stream in
            let audio = stream
            media.audio.append(
                .init(
                    codec: codec(of: stream), channels: Int(gst_discoverer_audio_info_get_channels(audio)),
                    sampleRate: Int(gst_discoverer_audio_info_get_sample_rate(audio))))
        }
        return media
    }

    private static func forEach(_ list: UnsafeMutablePointer<GList>?, _ body: (OpaquePointer) -> Void) {
        var node = list
        while let current = node {
            if let data = current.pointee.data { body(OpaquePointer(data)) }
            node = current.pointee.next
        }
    }

    /// A short codec name from the stream's caps: h264, h265, aac, mp3, opus, … or the caps name.
    private static func codec(of stream: OpaquePointer) -> String {
        guard let caps = gst_discoverer_stream_info_get_caps(stream) else { return "unknown" }
        let wrapped = Caps(owning: caps)
        switch wrapped.mediaType ?? "" {
        case "video/x-h264": return "h264"
        case "video/x-h265": return "h265"
        case "video/x-vp8": return "vp8"
        case "video/x-vp9": return "vp9"
        case "audio/mpeg": return wrapped.int("mpegversion") == 1 ? "mp3" : "aac"
        case "audio/x-opus": return "opus"
        case let other: return other
        }
    }
}
