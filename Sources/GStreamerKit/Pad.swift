import CGStreamer
import CGStreamerShim

/// A pad: where data enters or leaves an element. Holds one strong reference.
public final class Pad: @unchecked Sendable {
    public let pointer: UnsafeMutablePointer<GstPad>

    /// Takes ownership of a reference the caller already holds.
    init(owning pointer: UnsafeMutablePointer<GstPad>) { self.pointer = pointer }

    /// Adds a reference (sinking a floating one).
    init(retaining pointer: UnsafeMutablePointer<GstPad>) {
        self.pointer = pointer
        gst_object_ref_sink(UnsafeMutableRawPointer(pointer))
    }

    deinit { gst_object_unref(UnsafeMutableRawPointer(pointer)) }

    public var name: String { String(cString: appl_object_name(UnsafeMutableRawPointer(pointer))) }

    public var peer: Pad? { gst_pad_get_peer(pointer).map { Pad(owning: $0) } }
    public var isLinked: Bool { gst_pad_is_linked(pointer) != 0 }

    public func link(_ sink: Pad) throws {
        let result = gst_pad_link(pointer, sink.pointer)
        guard result == GST_PAD_LINK_OK else {
            throw GStreamerError(
                element: name,
                message:
                    "cannot link pad '\(name)' to '\(sink.name)' (\(String(cString: gst_pad_link_get_name(result))))")
        }
    }

    @discardableResult
    public func unlink(_ sink: Pad) -> Bool { gst_pad_unlink(pointer, sink.pointer) != 0 }

    /// Sends an event into this pad (as if it came from the peer).
    @discardableResult
    public func send(_ event: Event) -> Bool { gst_pad_send_event(pointer, event.take()) != 0 }

    /// Pushes an event out of this (source) pad to its peer.
    @discardableResult
    public func push(_ event: Event) -> Bool { gst_pad_push_event(pointer, event.take()) != 0 }

    /// Shifts the running time of everything leaving this pad by `offset` nanoseconds.
    public func setOffset(_ offset: Int64) { appl_pad_set_offset(pointer, gint64(offset)) }

    /// Caps currently negotiated on the pad.
    public var currentCaps: Caps? { gst_pad_get_current_caps(pointer).map { Caps(owning: $0) } }

    /// Every format the pad could handle now (for a source at READY: what the device offers).
    public func queryCaps() -> Caps? { gst_pad_query_caps(pointer, nil).map { Caps(owning: $0) } }

    /// Makes this sink ghost pad return OK upstream whatever its bin returns (FLUSHING excepted), so a failing bin
    /// cannot stop what feeds it; the first error it returned is kept (`guardedFlow`; EOS and not-linked are only
    /// absorbed). False if this is not a sink ghost pad.
    @discardableResult
    public func guardFlow() -> Bool { appl_pad_guard_flow(pointer) != 0 }

    /// The first error the guard kept from its bin ("error", "not-negotiated"), nil while none.
    public var guardedFlow: String? {
        let flow = appl_pad_guarded_flow(pointer)
        return flow == 0 ? nil : String(cString: gst_flow_get_name(GstFlowReturn(rawValue: flow)))
    }

    /// Converts a timestamp on this pad to running time using the pad's current segment.
    public func runningTime(_ timestamp: UInt64) -> ClockTime? {
        ClockTime.from(UInt64(appl_pad_to_running_time(pointer, guint64(timestamp))))
    }
}
