import Foundation
import Mp4

/// Which Debian package brings a GStreamer element, so a missing one comes with the command that installs it.
package enum PluginPackages {
    package static let base = "gstreamer1.0-plugins-base"
    package static let good = "gstreamer1.0-plugins-good"
    package static let bad = "gstreamer1.0-plugins-bad"

    package static let debian: [String: String] = [
        "x264enc": "gstreamer1.0-plugins-ugly",
        "avenc_aac": "gstreamer1.0-libav",
        "alsasrc": "gstreamer1.0-alsa",
        "glimagesink": "gstreamer1.0-gl",
        "libcamerasrc": "gstreamer1.0-libcamera",
        "v4l2src": good, "v4l2h264enc": good, "aacparse": good, "mp4mux": good, "qtdemux": good, "videoflip": good,
        "splitmuxsrc": good, "jpegenc": good, "level": good, "capssetter": good, "imagefreeze": good,
        "textoverlay": "gstreamer1.0-x", "clockoverlay": "gstreamer1.0-x",
        "h264parse": bad, "kmssink": bad, "waylandsink": bad,
        "videotestsrc": base, "audiotestsrc": base, "videoconvert": base, "videoscale": base, "videorate": base,
        "audioconvert": base, "audioresample": base, "appsink": base, "decodebin": base,
        "input-selector": "libgstreamer1.0-0", "tee": "libgstreamer1.0-0", "queue": "libgstreamer1.0-0",
        "capsfilter": "libgstreamer1.0-0", "fakesink": "libgstreamer1.0-0", "identity": "libgstreamer1.0-0",
    ]

    /// "install gstreamer1.0-plugins-ugly (apt install gstreamer1.0-plugins-ugly)"-style advice for one element.
    package static func fix(forMissing element: String) -> String {
        if let package = debian[element] { return "install \(package) (apt install \(package))" }
        return
            "install the GStreamer plugin that provides \(element) (gst-inspect-1.0 \(element) tells when it is there)"
    }

    /// The element a GStreamer parse error names: `no element "x264enc"` → x264enc.
    package static func missingElement(in message: String) -> String? {
        guard let range = message.range(of: #"no element \"[^\"]+\""#, options: .regularExpression) else { return nil }
        return message[range].split(separator: "\"").dropFirst().first.map(String.init)
    }
}
