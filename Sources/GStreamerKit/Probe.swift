import CGStreamer
import CGStreamerShim
import Synchronization

/// What a probe is called for. Combine: `[.buffer, .block]`.
public struct ProbeKind: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let buffer = ProbeKind(rawValue: GST_PAD_PROBE_TYPE_BUFFER.rawValue)
    public static let bufferList = ProbeKind(rawValue: GST_PAD_PROBE_TYPE_BUFFER_LIST.rawValue)
    public static let eventDownstream = ProbeKind(rawValue: GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM.rawValue)
    public static let eventUpstream = ProbeKind(rawValue: GST_PAD_PROBE_TYPE_EVENT_UPSTREAM.rawValue)
    public static let queryDownstream = ProbeKind(rawValue: GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM.rawValue)
    /// Holds the data in the pad until the probe is removed (or the callback answers `.remove`/`.pass`).
    public static let block = ProbeKind(rawValue: GST_PAD_PROBE_TYPE_BLOCK.rawValue)
    /// Called once the pad is idle (no data flowing); can be called from the calling thread.
    public static let idle = ProbeKind(rawValue: GST_PAD_PROBE_TYPE_IDLE.rawValue)
}

/// The probe callback's verdict.
public enum ProbeReturn: Sendable {
    /// Let the data through (or, for a blocking probe, keep blocking).
    case ok
    /// Drop the data.
    case drop
    /// Let the data through and remove the probe.
    case remove
    /// Let the data through without blocking, leave the probe installed.
    case pass
    /// The callback passed the data on itself (`ProbeInfo.chainToPeer`).
    case handled

    var raw: GstPadProbeReturn {
        switch self {
        case .ok: GST_PAD_PROBE_OK
        case .drop: GST_PAD_PROBE_DROP
        case .remove: GST_PAD_PROBE_REMOVE
        case .pass: GST_PAD_PROBE_PASS
        case .handled: GST_PAD_PROBE_HANDLED
        }
    }
}

/// A view of a buffer seen by a probe, valid only inside the callback.
public struct BufferView {
    let pointer: UnsafeMutablePointer<GstBuffer>

    public var pts: UInt64 { UInt64(pointer.pointee.pts) }
    public var dts: UInt64 { UInt64(pointer.pointee.dts) }
    public var duration: UInt64 { UInt64(pointer.pointee.duration) }
    public var isKeyframe: Bool { appl_buffer_is_keyframe(pointer) != 0 }
    public var size: Int { Int(gst_buffer_get_size(pointer)) }

    /// The first `count` bytes (fewer if the buffer is shorter), e.g. an RTP header.
    public func bytes(upTo count: Int) -> [UInt8] { bytes(at: 0, upTo: count) }

    /// Up to `count` bytes from `offset`.
    public func bytes(at offset: Int, upTo count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let copied = bytes.withUnsafeMutableBytes {
            gst_buffer_extract(pointer, gsize(offset), $0.baseAddress, gsize(count))
        }
        return Array(bytes.prefix(Int(copied)))
    }
}

/// A buffer reference kept beyond a probe callback (e.g. the last frame, to repeat it over a gap).
public final class BufferRef: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<GstBuffer>
    init(retaining pointer: UnsafeMutablePointer<GstBuffer>) {
        self.pointer = pointer
        _ = gst_mini_object_ref(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstMiniObject.self))
    }
    deinit { gst_mini_object_unref(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstMiniObject.self)) }
}

extension BufferView {
    /// Keeps a reference to this buffer after the callback returns.
    public func retain() -> BufferRef { BufferRef(retaining: pointer) }
}

/// Event types the appliance looks at in probes.
public enum EventKind: Sendable, Equatable {
    case eos, segment, caps, flushStart, flushStop, customDownstream, reconfigure, other(UInt32)

    init(_ raw: GstEventType) {
        switch raw {
        case GST_EVENT_EOS: self = .eos
        case GST_EVENT_SEGMENT: self = .segment
        case GST_EVENT_CAPS: self = .caps
        case GST_EVENT_FLUSH_START: self = .flushStart
        case GST_EVENT_FLUSH_STOP: self = .flushStop
        case GST_EVENT_CUSTOM_DOWNSTREAM: self = .customDownstream
        case GST_EVENT_RECONFIGURE: self = .reconfigure
        default: self = .other(raw.rawValue)
        }
    }
}

/// What a probe callback receives: the pad and either a buffer or an event.
public struct ProbeInfo {
    public let pad: UnsafeMutablePointer<GstPad>
    let info: UnsafeMutablePointer<GstPadProbeInfo>

    public var buffer: BufferView? {
        guard info.pointee.type.rawValue & GST_PAD_PROBE_TYPE_BUFFER.rawValue != 0,
            let buffer = appl_probe_info_buffer(info)
        else { return nil }
        return BufferView(pointer: buffer)
    }

    /// The probed buffer, or each buffer of a probed buffer list, in order; empty for events and queries.
    public var buffers: [BufferView] {
        if let buffer { return [buffer] }
        guard info.pointee.type.rawValue & GST_PAD_PROBE_TYPE_BUFFER_LIST.rawValue != 0,
            let list = appl_probe_info_buffer_list(info)
        else { return [] }
        return (0..<gst_buffer_list_length(list)).compactMap { gst_buffer_list_get(list, $0).map(BufferView.init) }
    }

    public var event: EventKind? {
        guard info.pointee.type.rawValue & GST_PAD_PROBE_TYPE_EVENT_BOTH.rawValue != 0,
            let event = appl_probe_info_event(info)
        else { return nil }
        return EventKind(event.pointee.type)
    }

    /// Whether the probed data is an ALLOCATION query.
    public var isAllocationQuery: Bool {
        guard info.pointee.type.rawValue & GST_PAD_PROBE_TYPE_QUERY_BOTH.rawValue != 0,
            let query = appl_probe_info_query(info)
        else { return false }
        return query.pointee.type == GST_QUERY_ALLOCATION
    }

    /// Rewrites the probed buffer's PTS and duration (the buffer is made writable; metadata only when unshared).
    public func setBufferTiming(pts: UInt64, duration: UInt64) {
        appl_probe_info_set_timing(info, guint64(pts), guint64(duration))
    }

    /// Copies `bytes` over the probed buffer from `offset` (the buffer is made writable first); returns whether all
    /// of them fitted.
    @discardableResult
    public func fillBuffer(at offset: Int, with bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer {
            appl_probe_info_fill_buffer(info, gsize(offset), $0.baseAddress, gsize($0.count))
        } == bytes.count
    }

    /// Marks the probed buffer as a frame that depends on others (clears its keyframe standing downstream).
    public func markDeltaUnit() { appl_probe_info_set_delta_unit(info) }

    /// Marks the probed buffer so that a filesink fsyncs right after writing it.
    public func markSyncAfter() { appl_probe_info_set_sync_after(info) }

    /// Answers a SEEKING query "not seekable"; false when the probed data is something else. The probe must then
    /// return `.handled` (the query counts as answered).
    public func answerNotSeekable() -> Bool { appl_probe_info_answer_not_seekable(info) != 0 }

    /// Moves the probed buffer's PTS and DTS by `delta` nanoseconds (composition offsets kept).
    public func shiftBufferTiming(by delta: Int64) {
        appl_probe_info_shift_timing(info, gint64(delta))
    }

    /// Pushes copies of `buffer` out of the probed (source) pad from inside the callback, with PTS `start`,
    /// `start + step`, …: the copies pass through the probes of the pad again, in order.
    @discardableResult
    public func pushCopies(of buffer: BufferRef, start: UInt64, step: UInt64, count: Int) -> Bool {
        appl_pad_push_copies(pad, buffer.pointer, guint64(start), guint64(step), Int32(count)) == GST_FLOW_OK
    }

    /// Running time of a timestamp on the probed pad.
    public func runningTime(_ timestamp: UInt64) -> UInt64 { UInt64(appl_pad_to_running_time(pad, guint64(timestamp))) }

    /// Hands the buffer to the peer pad now and returns whether the peer took it (false: an error, EOS or a flush
    /// came back). The callback must return `.handled`: whatever the peer answered, the pusher sees success, so a
    /// failing branch (a full disk behind a tee) cannot stop the stream feeding the others.
    public func chainToPeer() -> Bool {
        appl_probe_info_chain_to_peer(pad, info) == GST_FLOW_OK
    }

    /// Sends an event straight into the peer of the probed pad, from inside the callback (same streaming thread).
    /// Unlike pushing it out of the pad, this leaves the probed pad itself untouched: an EOS sent this way ends
    /// only the peer's branch, and the pad's element (a tee, say) never sees a flow return of EOS.
    @discardableResult
    public func sendToPeer(_ event: Event) -> Bool {
        guard let peer = gst_pad_get_peer(pad) else { return false }
        defer { gst_object_unref(UnsafeMutableRawPointer(peer)) }
        return gst_pad_send_event(peer, event.take()) != 0
    }
}

/// Callback type for probes. Runs on a GStreamer streaming thread: it must not block or await.
public typealias ProbeCallback = @Sendable (ProbeInfo) -> ProbeReturn

private final class ProbeBox {
    let callback: ProbeCallback
    init(_ callback: @escaping ProbeCallback) { self.callback = callback }
}

/// An installed probe. `remove()` is safe to call any number of times, from any thread: only the first call
/// removes it (GStreamer warns about, and could misdirect, a second removal of the same id).
public final class Probe: Sendable {
    private let pad: Pad
    private let id: gulong
    private let removed = Atomic<Bool>(false)

    init(pad: Pad, id: gulong) {
        self.pad = pad
        self.id = id
    }

    public func remove() {
        guard id != 0, !removed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        gst_pad_remove_probe(pad.pointer, id)
    }

    /// Marks the probe removed without calling GStreamer: its callback returned `.remove` (GStreamer removed it).
    public func markRemoved() { removed.store(true, ordering: .releasing) }
}

extension Pad {
    /// Hands the RTP packets leaving this (payloader's source) pad on as one buffer list per frame (`perFrame`: up to
    /// the marker bit, or a packet of a new RTP timestamp) or per `maxPackets` packets: each frame then costs the
    /// threads and sockets behind it one wake-up and one send instead of one per NAL unit. Packets and their order
    /// are unchanged; held packets go before any serialized event (EOS) and are dropped at a flush.
    public func batchRTP(maxPackets: UInt32 = .max, perFrame: Bool) {
        appl_pad_add_rtp_batcher(pointer, guint(maxPackets), perFrame ? 1 : 0)
    }

    /// Installs a probe with a Swift closure, like gstreamer-rs' `pad.add_probe`.
    @discardableResult
    public func addProbe(_ kind: ProbeKind, _ callback: @escaping ProbeCallback) -> Probe {
        let box = Unmanaged.passRetained(ProbeBox(callback)).toOpaque()
        let id = gst_pad_add_probe(
            pointer, GstPadProbeType(rawValue: kind.rawValue),
            { pad, info, userData in
                guard let pad, let info, let userData else { return GST_PAD_PROBE_OK }
                let box = Unmanaged<ProbeBox>.fromOpaque(userData).takeUnretainedValue()
                return box.callback(ProbeInfo(pad: pad, info: info)).raw
            },
            box,
            { userData in
                if let userData { Unmanaged<ProbeBox>.fromOpaque(userData).release() }
            })
        return Probe(pad: self, id: id)
    }
}
