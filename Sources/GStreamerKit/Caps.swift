import CGStreamer

/// Media capabilities, e.g. "video/x-raw,format=I420,width=1280,height=720".
public final class Caps: @unchecked Sendable, CustomStringConvertible {
    let pointer: UnsafeMutablePointer<GstCaps>

    /// Parses caps from text; fails with the text in the error.
    public init(_ text: String) throws {
        GStreamer.initialize()
        guard let caps = gst_caps_from_string(text) else {
            throw GStreamerError(element: "", message: "invalid caps: \(text)")
        }
        pointer = caps
    }

    /// Wraps caps, taking ownership of one reference.
    init(owning pointer: UnsafeMutablePointer<GstCaps>) { self.pointer = pointer }

    deinit { gst_mini_object_unref(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstMiniObject.self)) }

    public var description: String { takeGString(gst_caps_to_string(pointer)) ?? "" }

    /// Integer field of the first structure (e.g. "width").
    public func int(_ field: String) -> Int? {
        guard gst_caps_get_size(pointer) > 0, let structure = gst_caps_get_structure(pointer, 0) else { return nil }
        var value: gint = 0
        return gst_structure_get_int(structure, field, &value) != 0 ? Int(value) : nil
    }

    /// Name of the first structure, e.g. "video/x-raw".
    public var mediaType: String? {
        guard gst_caps_get_size(pointer) > 0, let structure = gst_caps_get_structure(pointer, 0) else { return nil }
        return String(cString: gst_structure_get_name(structure))
    }
}
