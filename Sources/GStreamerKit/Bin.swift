import CGStreamer
import CGStreamerShim

/// A container of elements. Also used for bins parsed from gst-launch descriptions.
public class Bin: Element, @unchecked Sendable {
    /// A new empty bin.
    public init(name: String) {
        GStreamer.initialize()
        super.init(retaining: gst_bin_new(name))
    }

    public override init(retaining pointer: UnsafeMutablePointer<GstElement>) {
        super.init(retaining: pointer)
    }

    var binPointer: UnsafeMutablePointer<GstBin> { UnsafeMutablePointer<GstBin>(OpaquePointer(pointer)) }

    /// Parses a gst-launch style description ("videotestsrc ! videoconvert") into a bin whose unlinked pads
    /// are ghosted. The error carries GStreamer's parser message and the `label` (e.g. the fragment's file).
    /// Pass `ghostUnlinkedPads: false` for self-contained descriptions with delayed links (demuxers): ghosting
    /// would take the pad the delayed link needs.
    /// A value quoted for a gst-launch description (a file path with spaces or quotes in it).
    public static func quoted(_ value: String) -> String {
        "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    public static func parse(_ description: String, name: String, label: String, ghostUnlinkedPads: Bool = true) throws
        -> Bin
    {
        GStreamer.initialize()
        var error: UnsafeMutablePointer<GError>?
        let element = gst_parse_bin_from_description_full(
            description, ghostUnlinkedPads ? 1 : 0, nil, GST_PARSE_FLAG_FATAL_ERRORS, &error)
        guard let element else {
            throw GStreamerError.consume(error, element: label, fallback: "cannot parse pipeline fragment")
        }
        if let error {  // recoverable: a property set that failed, etc. Treat as fatal for predictability.
            let parsed = GStreamerError.consume(error, element: label, fallback: "")
            gst_object_unref(UnsafeMutableRawPointer(element))
            throw parsed
        }
        let bin = Bin(retaining: element)
        gst_object_set_name(UnsafeMutablePointer<GstObject>(OpaquePointer(element)), name)
        return bin
    }

    /// For a source whose elements add their pads later (uridecodebin, decodebin, rtspsrc with several streams):
    /// its first video pad becomes the bin's `src` (made now, without a target, when the description left none) and
    /// every other pad added goes to a fakesink, so a sound track nobody links stops nothing. Returns how many
    /// elements add pads later (0: nothing to do).
    @discardableResult
    public func exposeDynamicPads() -> Int {
        Int(appl_bin_expose_dynamic_pads(binPointer))
    }

    /// The files its filesrc elements read, at any depth (a camera fed through a FIFO is one of them).
    public var fileLocations: [String] {
        takeGString(appl_bin_file_locations(binPointer))?.split(separator: "\n").map(String.init) ?? []
    }

    public func add(_ element: Element) throws {
        guard gst_bin_add(binPointer, element.pointer) != 0 else {
            throw GStreamerError(element: name, message: "cannot add '\(element.name)' to '\(name)'")
        }
    }

    public func add(_ elements: [Element]) throws { for element in elements { try add(element) } }

    public func remove(_ element: Element) {
        _ = gst_bin_remove(binPointer, element.pointer)
    }

    /// Finds an element by name anywhere inside the bin.
    public func element(named name: String) -> Element? {
        guard let found = gst_bin_get_by_name(binPointer, name) else { return nil }
        let element = Element(retaining: found)
        gst_object_unref(UnsafeMutableRawPointer(found))
        return element
    }

    /// Exposes an inner pad on the bin's boundary.
    @discardableResult
    public func addGhostPad(named name: String, target: Pad) throws -> Pad {
        guard let ghost = gst_ghost_pad_new(name, target.pointer) else {
            throw GStreamerError(element: self.name, message: "cannot create ghost pad '\(name)'")
        }
        let pad = Pad(retaining: ghost)
        _ = gst_pad_set_active(ghost, 1)
        guard gst_element_add_pad(pointer, ghost) != 0 else {
            throw GStreamerError(element: self.name, message: "cannot add ghost pad '\(name)'")
        }
        return pad
    }

    /// Writes the graph as a Graphviz file into GST_DEBUG_DUMP_DOT_DIR (when set).
    public func dumpDot(_ fileName: String) {
        gst_debug_bin_to_dot_file(binPointer, GST_DEBUG_GRAPH_SHOW_ALL, fileName)
    }
}

/// The top-level bin that owns a clock and a bus.
public final class Pipeline: Bin, @unchecked Sendable {
    public override init(name: String) {
        GStreamer.initialize()
        super.init(retaining: gst_pipeline_new(name))
    }

    /// The pipeline's bus, read on one dedicated thread.
    public func makeBusReader() -> BusReader {
        BusReader(bus: gst_element_get_bus(pointer))
    }
}
