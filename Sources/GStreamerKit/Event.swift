import CGStreamer

/// A GStreamer event about to be sent. Owns its reference until sent.
public final class Event: @unchecked Sendable {
    private var pointer: UnsafeMutablePointer<GstEvent>?

    init(owning pointer: UnsafeMutablePointer<GstEvent>) { self.pointer = pointer }

    deinit {
        if let pointer {
            gst_mini_object_unref(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstMiniObject.self))
        }
    }

    /// Hands the reference to a function that takes ownership.
    func take() -> UnsafeMutablePointer<GstEvent>? {
        defer { pointer = nil }
        return pointer
    }

    public static func eos() -> Event { Event(owning: gst_event_new_eos()) }

    /// A stream tag event with an empty tag list (parsers and encoders send such events mid-stream).
    public static func emptyTags() -> Event { Event(owning: gst_event_new_tag(gst_tag_list_new_empty())) }

    /// Asks an encoder upstream for a keyframe at `runningTime` (nil: as soon as possible), with SPS/PPS.
    /// In-band request for a keyframe on the next frame (sent just before that frame, in stream order).
    public static func forceKeyUnitDownstream(allHeaders: Bool = true) -> Event {
        let none = GstClockTime(ClockTime.none)
        return Event(owning: gst_video_event_new_downstream_force_key_unit(none, none, none, allHeaders ? 1 : 0, 0))
    }

    public static func forceKeyUnitUpstream(runningTime: ClockTime? = nil, allHeaders: Bool = true) -> Event {
        Event(
            owning: gst_video_event_new_upstream_force_key_unit(
                GstClockTime(runningTime?.nanoseconds ?? ClockTime.none), allHeaders ? 1 : 0, 0))
    }
}
