import ApplianceBase
import ApplianceProtocol
import AsyncAlgorithms
import GStreamerKit
import ServiceLifecycle

/// Watches capture devices come and go: GStreamer's device monitor (events `device_added`, `device_removed`), and
/// every 2 s the configured V4L2 device nodes, which appear without the monitor noticing where there is no udev
/// provider (containers, minimal boards), and the FIFO cameras' writers. Either way every channel's camera switcher
/// takes another look (one watch for all channels: the device monitor has one stream of changes).
package struct CameraWatch: Service, CustomStringConvertible {
    package var description: String { "CameraWatch" }
    package let monitor: DeviceMonitor
    package let cameras: [CameraSwitcher]
    package let events: EventHub

    package init(monitor: DeviceMonitor, cameras: [CameraSwitcher], events: EventHub) {
        self.monitor = monitor
        self.cameras = cameras
        self.events = events
    }
    static let pollInterval: Duration = .seconds(2)

    package func run() async throws {
        let monitor = self.monitor
        let watching = (try? await blocking { monitor.start() }) ?? false  // providers may take a while to answer
        await withDiscardingTaskGroup { group in
            if watching {
                group.addTask {
                    for await change in monitor.changes.cancelOnGracefulShutdown() {
                        switch change {
                        case .added(let device): events.publish(.deviceAdded(DeviceInfo(device)))
                        case .removed(let device): events.publish(.deviceRemoved(DeviceInfo(device)))
                        }
                        for switcher in cameras { switcher.refreshDevices() }
                    }
                }
            }
            group.addTask {
                for await _ in AsyncTimerSequence(interval: Self.pollInterval, clock: .continuous)
                    .cancelOnGracefulShutdown()
                {
                    for switcher in cameras { switcher.refreshDevices() }
                }
            }
        }
        monitor.stop()
    }
}

extension DeviceInfo {
    package init(_ device: CaptureDevice) {
        self.init(name: device.name, deviceClass: device.deviceClass, caps: device.caps, path: device.path)
    }
}
