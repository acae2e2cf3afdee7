import ApplianceBase
import ApplianceProtocol
import Foundation
import SystemCalls

/// Keeping the output going when cameras fail, vanish or appear.
extension CameraSwitcher {
    func handleFailure(_ name: String, reason: String) async {
        guard let slot = slots.first(where: { $0.name == name }) else { return }
        if case .error = slot.state.withLock({ $0 }) { return }
        let wasActive = slot === active
        if wasActive {
            await showFillerNow()
            setActive(nil)
        }
        slot.state.withLock { $0 = .error(reason) }
        noteFailure(of: slot)
        await slot.stop()
        events.publish(.cameraFailed(CameraFailure(camera: name, reason: reason)))
        logger.error("camera '\(name)' failed: \(reason)\(wasActive ? "; the output continues on the filler" : "")")
        if wasActive { await activateFirstWorking(after: slot) }
    }

    /// Tries usable cameras in configuration order, starting after `failed`; stays on the filler if none works.
    func activateFirstWorking(after failed: CameraSlot?) async {
        let start = failed.flatMap { f in slots.firstIndex { $0 === f } }.map { $0 + 1 } ?? 0
        let order = slots.indices.map { slots[(start + $0) % slots.count] }
        var tried = false
        for candidate in order where candidate !== failed && isUsable(candidate) {
            tried = true
            if (try? await activate(candidate, leaving: nil)) != nil { return }
        }
        // Said when a camera has just failed or one was tried; not at every device poll while all are missing.
        if tried || failed != nil { logger.error("no camera is working: the output shows the filler") }
    }

    /// V4L2 device nodes that appeared or vanished since the last look.
    func checkDevices() async {
        for slot in slots where slot.kind == "v4l2" {
            let present = FileManager.default.fileExists(atPath: slot.config.device)
            let state = slot.state.withLock { $0 }
            let device = CameraDevice(camera: slot.name, device: slot.config.device)
            if case .missing = state, present {
                slot.state.withLock { $0 = .standby }
                events.publish(.cameraAvailable(device))
                logger.notice("camera '\(slot.name)': \(slot.config.device) appeared")
            } else if !present, state == .standby || state.name == "error" {
                slot.state.withLock { $0 = .missing("device \(slot.config.device) not present") }
                events.publish(.cameraMissing(device))
            }
            if !present { releaseVanishedNodes() }
        }
        for slot in slots {
            if let fifo = slot.fifo { checkWriter(of: slot, on: fifo) }
        }
        if active == nil {
            await activateFirstWorking(after: nil)
        } else {
            await takeBackPreferred()
        }
    }

    /// A camera fed through a FIFO is missing while nothing writes to it, and usable again once a writer has
    /// written: a capture process that comes minutes after the daemon is picked up at the next poll, with its first
    /// frame, and one log line each way.
    private func checkWriter(of slot: CameraSlot, on fifo: FifoHold) {
        let (state, written) = (slot.state.withLock { $0 }, fifo.hasWriter)
        if case .missing = state, written {
            slot.state.withLock { $0 = .standby }
            events.publish(.cameraAvailable(CameraDevice(camera: slot.name, device: fifo.path)))
            logger.notice("camera '\(slot.name)': a writer opened \(fifo.path)")
        } else if state.name == "error", !slot.isStuck, !written {
            waitForWriter(slot, on: fifo.path, reason: "no writer on the FIFO \(fifo.path)")
        }
    }

    /// Marks a FIFO camera missing until a writer comes (`checkWriter`): it is not retried meanwhile.
    func waitForWriter(_ slot: CameraSlot, on path: String, reason: String) {
        slot.state.withLock { $0 = .missing(reason) }
        events.publish(.cameraMissing(CameraDevice(camera: slot.name, device: path)))
        logger.notice("camera '\(slot.name)': \(reason); it starts when one writes")
    }

    /// The preferred camera failed and the output went on with another: once its backoff allows, it is tried again
    /// while the other stays shown, and takes the output back at its first frame. Only a camera that starts beside
    /// the others: a retry of any other would show the filler each time.
    func takeBackPreferred() async {
        guard let preferred, preferred !== active, preferred.startsBesideOthers, isUsable(preferred) else { return }
        _ = try? await activate(preferred, leaving: active)
    }

    /// GStreamer's v4l2 buffer pool keeps a dup of a stopped camera's descriptor (measured in the lab: after an
    /// unplug, with the camera's bin at NULL and no frame of it held, one "/dev/video0 (deleted)" stays, and the
    /// camera came back as /dev/video1). Such descriptors are let go (`VanishedDevices`), so a camera that returns
    /// gets its old node and is found again by that name, without a udev link.
    func releaseVanishedNodes() {
        for released in VanishedDevices.release(prefix: "/dev/video") {
            logger.notice("let go of a descriptor on a vanished camera node: \(released)")
        }
    }

    /// A camera that failed gets another chance once its backoff has passed (1 s, doubling to 30 s), and never
    /// while a start of it is stuck in its source.
    func isUsable(_ slot: CameraSlot) -> Bool {
        switch slot.state.withLock({ $0 }) {
        case .standby: true
        case .error: !slot.isStuck && retries[slot.name]?.allows(.now) != false
        case .active, .starting, .missing: false
        }
    }

    /// Counts a failed start or a failed stream towards the camera's backoff.
    func noteFailure(of slot: CameraSlot) {
        retries[slot.name, default: RetryBackoff()].failed(at: .now)
    }

    func nextUsable(after current: CameraSlot?) -> CameraSlot? {
        let start = current.flatMap { c in slots.firstIndex { $0 === c } }.map { $0 + 1 } ?? 0
        return slots.indices.map { slots[(start + $0) % slots.count] }.first { $0 !== current && isUsable($0) }
    }
}
