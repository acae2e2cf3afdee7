import CGStreamer
import CGStreamerShim

/// Delivers every sample an appsink receives to a closure on the streaming thread.
/// The closure must not block: keep the sample and hand work to another queue.
public enum AppSink {
    private final class Box {
        let onSample: @Sendable (Sample) -> Void
        init(_ onSample: @escaping @Sendable (Sample) -> Void) { self.onSample = onSample }
    }

    public static func onNewSample(_ element: Element, _ handler: @escaping @Sendable (Sample) -> Void) {
        let appsink = UnsafeMutablePointer<GstAppSink>(OpaquePointer(element.pointer))
        var callbacks = GstAppSinkCallbacks()
        callbacks.new_sample = { sink, userData in
            guard let sink, let userData else { return GST_FLOW_OK }
            let box = Unmanaged<Box>.fromOpaque(userData).takeUnretainedValue()
            if let sample = gst_app_sink_pull_sample(sink) { box.onSample(Sample(owning: sample)) }
            return GST_FLOW_OK
        }
        let box = Unmanaged.passRetained(Box(handler)).toOpaque()
        gst_app_sink_set_callbacks(appsink, &callbacks, box) { userData in
            if let userData { Unmanaged<Box>.fromOpaque(userData).release() }
        }
    }

    /// Hands every sample `element` (an appsink) receives to `target` (a leaky appsrc, maybe in another pipeline),
    /// unstamped: the appsrc stamps it on arrival. Done in C on the streaming thread, without a Swift hop.
    public static func forward(_ element: Element, to target: Element) {
        appl_app_sink_forward(element.pointer, target.pointer)
    }

    /// Pulls one sample, waiting up to `timeout`; nil at EOS or time-out.
    public static func pull(_ element: Element, timeout: ClockTime) -> Sample? {
        let appsink = UnsafeMutablePointer<GstAppSink>(OpaquePointer(element.pointer))
        return gst_app_sink_try_pull_sample(appsink, GstClockTime(timeout.nanoseconds)).map { Sample(owning: $0) }
    }

    public static func isEOS(_ element: Element) -> Bool {
        gst_app_sink_is_eos(UnsafeMutablePointer<GstAppSink>(OpaquePointer(element.pointer))) != 0
    }
}
