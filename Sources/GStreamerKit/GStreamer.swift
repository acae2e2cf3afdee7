import CGStreamer
import CGStreamerShim

/// Process-wide GStreamer set-up.
public enum GStreamer {
    /// Initialises GStreamer once; later calls do nothing.
    public static func initialize() {
        appl_gst_init()
    }

    /// The runtime version, e.g. "1.22.0".
    public static var version: String {
        String(cString: gst_version_string()).replacingOccurrences(of: "GStreamer ", with: "")
    }

    /// Whether an element factory with this name is installed.
    public static func hasElement(_ factory: String) -> Bool {
        initialize()
        guard let found = gst_element_factory_find(factory) else { return false }
        gst_object_unref(UnsafeMutableRawPointer(found))
        return true
    }
}

/// What the registry says of an element factory: its rank, its class ("Codec/Encoder/Video/Hardware") and the file
/// and version of the plugin that brings it (a new driver or plugin build changes these).
public struct ElementFactoryInfo: Sendable, Equatable {
    public var name: String
    public var rank: Int
    public var klass: String
    public var pluginFile: String
    public var pluginVersion: String

    /// The factory named `name`, or nil when it is not installed.
    public static func find(_ name: String) -> ElementFactoryInfo? {
        GStreamer.initialize()
        guard let factory = gst_element_factory_find(name) else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(factory)) }
        let feature = factory  // a GstElementFactory is a GstPluginFeature (both opaque here)
        let klass = gst_element_factory_get_metadata(factory, "klass").map { String(cString: $0) } ?? ""
        var file = ""
        var version = ""
        if let plugin = gst_plugin_feature_get_plugin(feature) {
            file = gst_plugin_get_filename(plugin).map { String(cString: $0) } ?? ""
            version = gst_plugin_get_version(plugin).map { String(cString: $0) } ?? ""
            gst_object_unref(UnsafeMutableRawPointer(plugin))
        }
        return ElementFactoryInfo(
            name: name, rank: Int(gst_plugin_feature_get_rank(feature)), klass: klass, pluginFile: file,
            pluginVersion: version)
    }
}

/// An error reported by GStreamer, naming the element it came from.
public struct GStreamerError: Error, CustomStringConvertible, Sendable, Equatable {
    /// Name (or path) of the element that reported the error; empty when not tied to one.
    public var element: String
    public var message: String
    /// GStreamer's debug string: file, function and detail. Often the most useful part.
    public var debug: String?
    /// The pipeline did not finish within the time it was given (`Pipeline.runToEnd`), rather than failing.
    public var timedOut = false

    public init(element: String, message: String, debug: String? = nil, timedOut: Bool = false) {
        self.element = element
        self.message = message
        self.debug = debug
        self.timedOut = timedOut
    }

    public var description: String {
        var text = element.isEmpty ? message : "\(element): \(message)"
        if let debug, !debug.isEmpty { text += " (\(debug.split(separator: "\n").last.map(String.init) ?? debug))" }
        return text
    }

    /// Takes ownership of a GError and frees it.
    static func consume(_ error: UnsafeMutablePointer<GError>?, element: String, fallback: String) -> GStreamerError {
        guard let error else { return GStreamerError(element: element, message: fallback) }
        defer { g_error_free(error) }
        return GStreamerError(element: element, message: String(cString: error.pointee.message))
    }
}

/// Strings from C that GLib allocated: copies and frees them.
func takeGString(_ pointer: UnsafeMutablePointer<gchar>?) -> String? {
    guard let pointer else { return nil }
    defer { g_free(pointer) }
    return String(cString: pointer)
}
