import CGStreamer
import CGStreamerShim
import CJpeg

/// A buffer with its caps, as handed out by appsink. Owns one reference.
public final class Sample: @unchecked Sendable {
    let pointer: OpaquePointer

    init(owning pointer: OpaquePointer) { self.pointer = pointer }

    deinit { gst_mini_object_unref(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstMiniObject.self)) }

    /// Presentation timestamp of the sample's buffer.
    public var pts: ClockTime? {
        guard let buffer = gst_sample_get_buffer(pointer) else { return nil }
        return ClockTime.from(UInt64(buffer.pointee.pts))
    }

    /// Running time of the buffer, using the sample's segment.
    public var runningTime: ClockTime? {
        guard let buffer = gst_sample_get_buffer(pointer), let segment = gst_sample_get_segment(pointer) else {
            return nil
        }
        let pts = buffer.pointee.pts
        guard UInt64(pts) != ClockTime.none, segment.pointee.format == GST_FORMAT_TIME else { return nil }
        return ClockTime.from(UInt64(gst_segment_to_running_time(segment, GST_FORMAT_TIME, pts)))
    }

    /// A copy of the buffer's bytes (an encoded frame, say); nil when it cannot be mapped.
    public func copyBytes() -> [UInt8]? {
        guard let buffer = gst_sample_get_buffer(pointer) else { return nil }
        var info = GstMapInfo()
        guard gst_buffer_map(buffer, &info, GST_MAP_READ) != 0 else { return nil }
        defer { gst_buffer_unmap(buffer, &info) }
        return Array(UnsafeBufferPointer(start: info.data, count: Int(info.size)))
    }

    /// A copy whose buffer owns its memory. A frame straight from a V4L2 camera lives in the camera's buffer pool,
    /// and holding it keeps that pool — and its descriptor on the device node — alive: after an unplug the node stays
    /// referenced and the camera comes back under another name.
    public func detached() -> Sample {
        guard let buffer = gst_sample_get_buffer(pointer), let copy = gst_buffer_copy_deep(buffer),
            let sample = gst_sample_new(copy, gst_sample_get_caps(pointer), gst_sample_get_segment(pointer), nil)
        else { return self }
        gst_mini_object_unref(UnsafeMutableRawPointer(copy).assumingMemoryBound(to: GstMiniObject.self))
        return Sample(owning: sample)
    }

    public var caps: Caps? {
        guard let caps = gst_sample_get_caps(pointer) else { return nil }
        return Caps(owning: gst_caps_ref(caps))
    }

    /// Writes the (I420) frame as a JPEG scaled to fit `maxWidth`×`maxHeight` (0 = no bound); returns the size written.
    @discardableResult
    /// `box`: a red frame drawn around it (x, y, width, height in fractions of the picture), for an object's picture.
    public func writeJPEG(
        to path: String, maxWidth: Int = 0, maxHeight: Int = 0, quality: Int = 85,
        box: [Float]? = nil
    ) throws -> (width: Int, height: Int) {
        var width: Int32 = 0
        var height: Int32 = 0
        var error: UnsafeMutablePointer<CChar>?
        let result: Int32
        if let box, box.count == 4 {
            result = appl_jpeg_write_sample_box(
                pointer, path, Int32(maxWidth), Int32(maxHeight), Int32(quality), box, &width, &height, &error)
        } else {
            result = appl_jpeg_write_sample(
                pointer, path, Int32(maxWidth), Int32(maxHeight), Int32(quality), &width, &height, &error)
        }
        if result != 0 {
            throw GStreamerError(element: "jpeg", message: takeGString(error) ?? "JPEG encoding failed")
        }
        return (Int(width), Int(height))
    }
}
