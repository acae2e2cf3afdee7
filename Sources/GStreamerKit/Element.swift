import CGStreamer
import CGStreamerShim

/// The states a GStreamer element moves through.
public enum ElementState: Int32, Sendable, CustomStringConvertible {
    case voidPending = 0, null = 1, ready = 2, paused = 3, playing = 4

    var raw: GstState { GstState(rawValue: UInt32(rawValue)) }
    init(_ raw: GstState) { self = ElementState(rawValue: Int32(raw.rawValue)) ?? .voidPending }

    public var description: String {
        switch self {
        case .voidPending: "void-pending"
        case .null: "null"
        case .ready: "ready"
        case .paused: "paused"
        case .playing: "playing"
        }
    }
}

/// A GStreamer element. Holds one strong reference for its lifetime; thread-safe like the object it wraps.
public class Element: @unchecked Sendable {
    public let pointer: UnsafeMutablePointer<GstElement>

    /// Wraps an element, sinking a floating reference or adding one.
    public init(retaining pointer: UnsafeMutablePointer<GstElement>) {
        self.pointer = pointer
        gst_object_ref_sink(UnsafeMutableRawPointer(pointer))
    }

    deinit { gst_object_unref(UnsafeMutableRawPointer(pointer)) }

    /// Creates an element from a factory name ("x264enc"); the error names the missing factory.
    public static func make(_ factory: String, name: String? = nil) throws -> Element {
        GStreamer.initialize()
        guard let element = gst_element_factory_make(factory, name) else {
            throw GStreamerError(
                element: name ?? factory, message: "no such GStreamer element '\(factory)' (plugin not installed?)")
        }
        return Element(retaining: element)
    }

    var raw: UnsafeMutableRawPointer { UnsafeMutableRawPointer(pointer) }

    public var name: String { String(cString: appl_object_name(raw)) }
    /// Path in the bin hierarchy, e.g. "/appliance/camera-front/src".
    public var path: String { takeGString(appl_object_path(raw)) ?? name }
    /// GType name, e.g. "GstX264Enc".
    public var typeName: String { String(cString: appl_object_type_name(raw)) }

    // MARK: properties

    public func hasProperty(_ property: String) -> Bool { appl_object_has_property(raw, property) != 0 }

    /// Sets any property from its textual form, as gst-launch does (enums by nick, caps, numbers, booleans).
    public func set(_ property: String, string value: String) throws {
        guard appl_object_set_from_string(raw, property, value) != 0 else {
            throw GStreamerError(
                element: name, message: "element '\(name)' (\(typeName)) has no property '\(property)'")
        }
    }

    public func set(_ property: String, _ value: Bool) { appl_object_set_bool(raw, property, value ? 1 : 0) }
    public func set(_ property: String, int value: Int) { appl_object_set_int(raw, property, gint(value)) }
    public func set(_ property: String, uint value: UInt) { appl_object_set_uint(raw, property, guint(value)) }
    public func set(_ property: String, int64 value: Int64) { appl_object_set_int64(raw, property, gint64(value)) }
    public func set(_ property: String, uint64 value: UInt64) { appl_object_set_uint64(raw, property, guint64(value)) }
    public func set(_ property: String, _ value: String) { appl_object_set_string(raw, property, value) }
    public func set(_ property: String, _ caps: Caps) { appl_object_set_caps(raw, property, caps.pointer) }
    /// Sets a pad-typed property, e.g. input-selector's "active-pad".
    public func set(_ property: String, pad: Pad) {
        appl_object_set_object(raw, property, UnsafeMutableRawPointer(pad.pointer))
    }
    /// Name of the object an object-typed property holds ("active-pad" → "sink_1").
    public func objectName(_ property: String) -> String? { takeGString(appl_object_get_object_name(raw, property)) }

    /// A property's value in text form; nil for an unknown property.
    public func get(_ property: String) -> String? { takeGString(appl_object_get_string_form(raw, property)) }

    // MARK: state

    /// Changes state; throws when the change fails at once (asynchronous changes complete later).
    public func setState(_ state: ElementState) throws {
        if gst_element_set_state(pointer, state.raw) == GST_STATE_CHANGE_FAILURE {
            throw GStreamerError(element: name, message: "could not change '\(name)' to \(state)")
        }
    }

    /// Current state, waiting up to `timeout` for a pending change to finish.
    public func state(timeout: ClockTime = .zero) -> (ElementState, succeeded: Bool) {
        var current = GST_STATE_NULL
        var pending = GST_STATE_NULL
        let result = gst_element_get_state(pointer, &current, &pending, GstClockTime(timeout.nanoseconds))
        return (ElementState(current), result != GST_STATE_CHANGE_FAILURE)
    }

    /// Brings the element to its parent's state (for elements added to a running pipeline).
    @discardableResult
    public func syncStateWithParent() -> Bool { gst_element_sync_state_with_parent(pointer) != 0 }

    /// For an element started on its own while `pipeline` runs: its time starts now. Returns the pipeline's running
    /// time, to set as the offset of the element's output pad (see `Pad.setOffset`).
    public func startNow(in pipeline: Element) -> UInt64 { UInt64(appl_element_start_now(pointer, pipeline.pointer)) }

    /// Locks the state so the parent does not change it (used while an element is being removed).
    public func setLockedState(_ locked: Bool) { gst_element_set_locked_state(pointer, locked ? 1 : 0) }

    // MARK: pads and links

    public func staticPad(_ name: String) -> Pad? {
        gst_element_get_static_pad(pointer, name).map { Pad(owning: $0) }
    }

    /// Requests a pad from a template such as "src_%u" or "video_%u".
    public func requestPad(_ template: String) throws -> Pad {
        guard let pad = gst_element_request_pad_simple(pointer, template) else {
            throw GStreamerError(element: name, message: "'\(name)' gave no request pad for '\(template)'")
        }
        return Pad(owning: pad)
    }

    public func releaseRequestPad(_ pad: Pad) { gst_element_release_request_pad(pointer, pad.pointer) }

    /// Links this element's src to `next`'s sink, negotiating compatible pads.
    public func link(_ next: Element) throws {
        guard gst_element_link(pointer, next.pointer) != 0 else {
            throw GStreamerError(
                element: name, message: "cannot link '\(name)' to '\(next.name)' (incompatible formats?)")
        }
    }

    /// Links elements one after another.
    public static func link(_ elements: [Element]) throws {
        for (a, b) in zip(elements, elements.dropFirst()) { try a.link(b) }
    }

    public func unlink(_ next: Element) { gst_element_unlink(pointer, next.pointer) }

    // MARK: events and time

    /// Sends an event into the element (upstream events go to its sources, downstream to its sinks).
    @discardableResult
    public func send(_ event: Event) -> Bool { gst_element_send_event(pointer, event.take()) != 0 }

    /// Running time of the pipeline clock now, or nil before the element has a clock.
    public var runningTimeNow: ClockTime? { ClockTime.from(UInt64(appl_element_running_time_now(pointer))) }

    /// Running time now while the element is PLAYING with no state change pending, else nil. On its way to PLAYING
    /// an element has the clock before its new base time, and `runningTimeNow` read in between is hours off.
    public var runningTimeWhilePlaying: ClockTime? {
        ClockTime.from(UInt64(appl_element_running_time_when_playing(pointer)))
    }

    public var parent: Element? {
        guard let parent = gst_object_get_parent(UnsafeMutablePointer<GstObject>(OpaquePointer(pointer))) else {
            return nil
        }
        let element = Element(retaining: UnsafeMutablePointer<GstElement>(OpaquePointer(parent)))
        gst_object_unref(UnsafeMutableRawPointer(parent))
        return element
    }
}

extension Element {
    /// Duration of the stream in nanoseconds, if the element knows it (after preroll).
    public func queryDuration() -> ClockTime? {
        var duration: gint64 = -1
        guard gst_element_query_duration(pointer, GST_FORMAT_TIME, &duration) != 0, duration >= 0 else { return nil }
        return ClockTime(nanoseconds: UInt64(duration))
    }

    /// Flushing, accurate seek to `position` (for file pipelines).
    @discardableResult
    public func seek(to position: ClockTime) -> Bool {
        let flags = GstSeekFlags(rawValue: GST_SEEK_FLAG_FLUSH.rawValue | GST_SEEK_FLAG_ACCURATE.rawValue)
        return gst_element_seek_simple(pointer, GST_FORMAT_TIME, flags, gint64(position.nanoseconds)) != 0
    }
}
