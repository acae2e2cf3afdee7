import Foundation
import ApplianceProtocol
import AsyncAlgorithms
import GStreamerKit
import ServiceLifecycle

/// Watches capture devices come and go: GStreamer's device monitor (events `device_added`, `device_removed`), and
/// every 2 s the configured V4L2 device nodes, which appear without the monitor noticing where there is no udev
/// provider (containers, minimal boards). Either way the camera switcher takes another look.
struct DeviceWatch: Service, CustomStringConvertible {
    var description: String { "DeviceWatch" }
    let monitor: DeviceMonitor
    let cameras: CameraSwitcher
    let events: EventHub
    static let pollInterval: Duration = .seconds(2)

    func run() async throws {
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
                        cameras.refreshDevices()
                    }
                }
            }
            group.addTask {
                for await _ in AsyncTimerSequence(interval: Self.pollInterval, clock: .continuous).cancelOnGracefulShutdown() {
                    cameras.refreshDevices()
                }
            }
        }
        monitor.stop()
    }
}

extension DeviceWatch {
    /// GStreamer's PulseAudio device provider, started with no server to reach, tears its mainloop down while its
    /// thread still signals it: libpulse then aborts the daemon (`pa_close_pipe` assertion; measured about one
    /// start in 80 in KillTests). An appliance records from ALSA and has no PulseAudio server, so the provider is
    /// ranked out unless a server is named (`PULSE_SERVER`) or its socket is there.
    static func rankOutPulseWithoutServer(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard !pulseServerPresent(environment: environment) else { return false }
        return GStreamer.rankOut("pulsedeviceprovider")
    }

    static func pulseServerPresent(environment: [String: String]) -> Bool {
        if let server = environment["PULSE_SERVER"], !server.isEmpty { return true }
        let runtime = environment["XDG_RUNTIME_DIR"].map { [$0 + "/pulse/native"] } ?? []
        let sockets = runtime + ["/run/user/\(getuid())/pulse/native", "/run/pulse/native", "/var/run/pulse/native"]
        return sockets.contains { FileManager.default.fileExists(atPath: $0) }
    }
}

extension DeviceInfo {
    init(_ device: CaptureDevice) {
        self.init(name: device.name, deviceClass: device.deviceClass, caps: device.caps, path: device.path)
    }
}
