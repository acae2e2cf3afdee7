import CGStreamer
import CGStreamerShim
import Foundation

/// A capture device GStreamer's device monitor sees.
public struct CaptureDevice: Sendable, Codable, Equatable {
    public var name: String
    /// "Video/Source", "Audio/Source", …
    public var deviceClass: String
    public var caps: String
    /// Device node or card identifier when the provider gives one (e.g. /dev/video0).
    public var path: String?
}

/// Watches video and audio capture devices (GstDeviceMonitor): the current list, and hot-plug as an AsyncStream.
public final class DeviceMonitor: @unchecked Sendable {
    public enum Change: Sendable {
        case added(CaptureDevice)
        case removed(CaptureDevice)
    }

    private let monitor: UnsafeMutablePointer<GstDeviceMonitor>
    private let lock = NSLock()
    private var running = false
    public let changes: AsyncStream<Change>
    private let continuation: AsyncStream<Change>.Continuation

    public init() {
        GStreamer.initialize()
        monitor = gst_device_monitor_new()
        _ = gst_device_monitor_add_filter(monitor, "Video/Source", nil)
        _ = gst_device_monitor_add_filter(monitor, "Audio/Source", nil)
        (changes, continuation) = AsyncStream.makeStream(of: Change.self, bufferingPolicy: .bufferingNewest(64))
    }

    deinit {
        stop()
        gst_object_unref(UnsafeMutableRawPointer(monitor))
    }

    /// Starts monitoring; hot-plug messages are read on one thread. Returns false when no provider could start.
    @discardableResult
    public func start() -> Bool {
        guard gst_device_monitor_start(monitor) != 0 else { return false }
        lock.lock()
        running = true
        lock.unlock()
        let thread = Thread { [self] in
            let bus = gst_device_monitor_get_bus(monitor)!
            defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
            let mask = GstMessageType(rawValue: GST_MESSAGE_DEVICE_ADDED.rawValue | GST_MESSAGE_DEVICE_REMOVED.rawValue)
            while isRunning {
                guard let message = gst_bus_timed_pop_filtered(bus, 200_000_000, mask) else { continue }
                var added: Int32 = 0
                if let device = appl_message_parse_device(message, &added) {
                    let described = Self.describe(device)
                    continuation.yield(added != 0 ? .added(described) : .removed(described))
                    gst_object_unref(UnsafeMutableRawPointer(device))
                }
                gst_mini_object_unref(UnsafeMutableRawPointer(message).assumingMemoryBound(to: GstMiniObject.self))
            }
            continuation.finish()
        }
        thread.name = "gst-devices"
        thread.start()
        return true
    }

    public func stop() {
        lock.lock()
        let wasRunning = running
        running = false
        lock.unlock()
        if wasRunning { gst_device_monitor_stop(monitor) }
    }

    private var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return running
    }

    /// The devices present now.
    public var devices: [CaptureDevice] {
        var result: [CaptureDevice] = []
        var node = gst_device_monitor_get_devices(monitor)
        let head = node
        while let current = node {
            if let data = current.pointee.data {
                let device = data.assumingMemoryBound(to: GstDevice.self)
                result.append(Self.describe(device))
                gst_object_unref(data)
            }
            node = current.pointee.next
        }
        g_list_free(head)
        return result
    }

    static func describe(_ device: UnsafeMutablePointer<GstDevice>) -> CaptureDevice {
        var name: UnsafeMutablePointer<CChar>?
        var deviceClass: UnsafeMutablePointer<CChar>?
        var caps: UnsafeMutablePointer<CChar>?
        var path: UnsafeMutablePointer<CChar>?
        appl_device_describe(device, &name, &deviceClass, &caps, &path)
        return CaptureDevice(
            name: takeGString(name) ?? "", deviceClass: takeGString(deviceClass) ?? "",
            caps: takeGString(caps) ?? "", path: takeGString(path))
    }
}
