import CGStreamer
import CGStreamerShim
import Foundation

/// A typed bus message.
public enum Message: Sendable {
    case error(GStreamerError)
    case warning(GStreamerError)
    case endOfStream(source: String)
    case stateChanged(source: String, old: ElementState, new: ElementState)
    /// An element message such as "GstBinForwarded" or a plugin's own structure; `fields` is its text form.
    case element(source: String, name: String, fields: String)
}

/// Reads a bus on one dedicated thread (gst_bus_timed_pop_filtered) and delivers typed messages as an AsyncStream.
public final class BusReader: @unchecked Sendable {
    private let bus: UnsafeMutablePointer<GstBus>
    private let stopFlag = NSLock()
    private var stopped = false
    private var beats: UInt64 = 0
    public let messages: AsyncStream<Message>
    private let continuation: AsyncStream<Message>.Continuation
    private var thread: Thread?

    init(bus: UnsafeMutablePointer<GstBus>) {
        self.bus = bus
        (messages, continuation) = AsyncStream.makeStream(of: Message.self, bufferingPolicy: .bufferingNewest(1024))
    }

    deinit {
        stop()
        gst_object_unref(UnsafeMutableRawPointer(bus))
    }

    /// Starts the reading thread.
    public func start() {
        let thread = Thread { [self] in self.run() }
        thread.name = "gst-bus"
        self.thread = thread
        thread.start()
    }

    /// Stops the thread (within 100 ms) and finishes the stream.
    public func stop() {
        stopFlag.lock()
        stopped = true
        stopFlag.unlock()
    }

    private var isStopped: Bool {
        stopFlag.lock()
        defer { stopFlag.unlock() }
        return stopped
    }

    /// Counts the reading loop's turns: it turns at least every 100 ms, message or not, so a count that stops
    /// growing means the bus thread is stuck (a watchdog reads it).
    public var heartbeat: UInt64 {
        stopFlag.lock()
        defer { stopFlag.unlock() }
        return beats
    }

    private func beat() {
        stopFlag.lock()
        beats &+= 1
        stopFlag.unlock()
    }

    private func run() {
        let mask = GstMessageType(
            rawValue: GST_MESSAGE_ERROR.rawValue | GST_MESSAGE_WARNING.rawValue
                | GST_MESSAGE_EOS.rawValue | GST_MESSAGE_STATE_CHANGED.rawValue | GST_MESSAGE_ELEMENT.rawValue)
        while !isStopped {
            beat()
            guard let message = gst_bus_timed_pop_filtered(bus, 100_000_000, mask) else { continue }
            if let typed = Self.convert(message) { continuation.yield(typed) }
            gst_mini_object_unref(UnsafeMutableRawPointer(message).assumingMemoryBound(to: GstMiniObject.self))
        }
        continuation.finish()
    }

    static func convert(_ message: UnsafeMutablePointer<GstMessage>) -> Message? {
        let source = message.pointee.src.map { takeGString(appl_object_path(UnsafeMutableRawPointer($0))) ?? "" } ?? ""
        switch message.pointee.type {
        case GST_MESSAGE_ERROR, GST_MESSAGE_WARNING:
            var error: UnsafeMutablePointer<GError>?
            var debug: UnsafeMutablePointer<gchar>?
            let isError = message.pointee.type == GST_MESSAGE_ERROR
            if isError {
                gst_message_parse_error(message, &error, &debug)
            } else {
                gst_message_parse_warning(message, &error, &debug)
            }
            var parsed = GStreamerError.consume(error, element: source, fallback: "unknown error")
            parsed.debug = takeGString(debug)
            return isError ? .error(parsed) : .warning(parsed)
        case GST_MESSAGE_EOS:
            return .endOfStream(source: source)
        case GST_MESSAGE_STATE_CHANGED:
            var old = GST_STATE_NULL
            var new = GST_STATE_NULL
            var pending = GST_STATE_NULL
            gst_message_parse_state_changed(message, &old, &new, &pending)
            return .stateChanged(source: source, old: ElementState(old), new: ElementState(new))
        case GST_MESSAGE_ELEMENT:
            guard let structure = gst_message_get_structure(message) else { return nil }
            return .element(
                source: source, name: String(cString: gst_structure_get_name(structure)),
                fields: takeGString(gst_structure_to_string(structure)) ?? "")
        default:
            return nil
        }
    }
}

extension Pipeline {
    /// Takes the first error waiting on the bus (used before the bus thread starts, e.g. after a failed start).
    public func popError(timeout: ClockTime) -> GStreamerError? {
        let bus = gst_element_get_bus(pointer)!
        defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
        guard let message = gst_bus_timed_pop_filtered(bus, GstClockTime(timeout.nanoseconds), GST_MESSAGE_ERROR) else {
            return nil
        }
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(message).assumingMemoryBound(to: GstMiniObject.self)) }
        if case .error(let error) = BusReader.convert(message) { return error }
        return nil
    }
}

extension Pipeline {
    /// Plays a finite pipeline (files in, a file out) until end of stream: blocks the calling thread (run it off
    /// the cooperative pool), throws the first error, or a timeout. Leaves the pipeline stopped.
    public func runToEnd(timeout: ClockTime) throws {
        defer { _ = try? setState(.null) }
        try setState(.playing)
        let bus = gst_element_get_bus(pointer)!
        defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
        let mask = GstMessageType(GST_MESSAGE_EOS.rawValue | GST_MESSAGE_ERROR.rawValue)
        guard let message = gst_bus_timed_pop_filtered(bus, GstClockTime(timeout.nanoseconds), mask) else {
            throw GStreamerError(
                element: name, message: "did not finish within \(timeout.nanoseconds / 1_000_000_000) s",
                timedOut: true)
        }
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(message).assumingMemoryBound(to: GstMiniObject.self)) }
        if case .error(let error) = BusReader.convert(message) { throw error }
    }
}
