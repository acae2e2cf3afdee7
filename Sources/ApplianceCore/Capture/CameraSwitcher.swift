import Foundation
import GStreamerKit
import Logging

/// Owns which camera feeds the encoder. Switches are serialised (one at a time, in order) and atomic: the new
/// camera is selected only once it delivers frames; if it cannot, the previous camera comes back. While a camera
/// starts, the black live filler keeps the output running, so the recording never sees a gap.
public actor CameraSwitcher {
    public struct SwitchResult: Codable, Sendable {
        public var active: String?
        public var previous: String?
        public var switched: Bool
        /// From the request to the new camera's first frame at the encoder input (nil if not seen within a second).
        public var latencyMs: Double?
    }

    public struct CameraReport: Codable, Sendable {
        public var name: String
        public var source: String
        public var device: String?
        public var state: String
        public var detail: String?
        public var alwaysOn: Bool
    }

    public struct CamerasReport: Codable, Sendable {
        public var active: String?
        public var cameras: [CameraReport]
        public var devices: [CaptureDevice]
    }

    let graph: CaptureGraph
    let events: EventHub
    let logger: Logger
    private(set) var active: CameraSlot?
    /// The selector's active pad (the filler's at start).
    private var shownPad: Pad
    /// Every activation in order (for the cameras used by a recording).
    private(set) var activations: [String] = []
    private var tail: Task<Void, Never>?
    static let startTimeout: Duration = .seconds(5)

    init(graph: CaptureGraph, events: EventHub, logger: Logger) {
        self.graph = graph
        self.events = events
        self.logger = logger
        shownPad = graph.fillerPad
    }

    var slots: [CameraSlot] { graph.cameras }
    public var activeName: String? { active?.name }
    var activationCount: Int { activations.count }

    /// Runs operations one after another, in call order, even though each awaits.
    private func serialized<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let previous = tail
        let task = Task<T, Error> {
            await previous?.value
            return try await operation()
        }
        tail = Task { _ = try? await task.value }
        return try await task.value
    }

    // MARK: commands

    /// Brings up the first camera that works (always-on cameras start too); the filler covers a total failure.
    public func startInitial() async {
        _ = try? await serialized { await self.activateFirstWorking(after: nil) }
        for slot in slots where slot.config.alwaysOn && !slot.isRunning && slot.state.withLock({ $0 }) == .standby {
            _ = try? await blocking { try slot.start(following: self.graph.pipeline) }
        }
    }

    /// Switches to `name`, or to the next usable camera after the active one when `name` is nil.
    public func switchTo(_ name: String?) async throws -> SwitchResult {
        try await serialized { try await self.performSwitch(name) }
    }

    /// A camera's stream ended or errored: leave it, and keep the output going on the next working camera.
    public func cameraFailed(_ name: String, reason: String) async {
        _ = try? await serialized { await self.handleFailure(name, reason: reason) }
    }

    /// Hot-plug: missing cameras whose device appeared become usable (and active if nothing is).
    public func refreshDevices() async {
        _ = try? await serialized { await self.checkDevices() }
    }

    public func report(devices: [CaptureDevice]) -> CamerasReport {
        CamerasReport(active: active?.name, cameras: slots.map { slot in
            let state = slot.state.withLock { $0 }
            return CameraReport(name: slot.name, source: slot.kind, device: slot.kind == "v4l2" ? slot.config.device : nil,
                                state: state.name, detail: state.detail, alwaysOn: slot.config.alwaysOn)
        }, devices: devices)
    }

    /// Cameras activated since activation number `index`, plus the one active then (for a recording's row).
    func camerasUsed(since index: Int, activeAtStart: String?) -> [String] {
        var names: [String] = activeAtStart.map { [$0] } ?? []
        for name in activations.dropFirst(index) where !names.contains(name) { names.append(name) }
        return names
    }

    // MARK: implementation (always inside `serialized`)

    private func performSwitch(_ name: String?) async throws -> SwitchResult {
        let target: CameraSlot
        if let name {
            guard let found = slots.first(where: { $0.name == name }) else {
                throw ControlError(.notFound, "no camera named '\(name)' (cameras: \(slots.map(\.name).joined(separator: ", ")))")
            }
            target = found
        } else {
            guard let next = nextUsable(after: active) else {
                throw ControlError(.unavailable, "no other usable camera (\(slots.map { "\($0.name): \($0.state.withLock { $0 }.name)" }.joined(separator: ", ")))")
            }
            target = next
        }
        if target === active { return SwitchResult(active: target.name, previous: target.name, switched: false) }
        if case .missing(let reason) = target.state.withLock({ $0 }) {
            throw ControlError(.unavailable, "camera '\(target.name)' is missing: \(reason)")
        }
        let previous = active
        let started = ContinuousClock.now
        let arrived: ContinuousClock.Instant?
        do {
            arrived = try await activate(target, leaving: previous)
        } catch {
            let reason = "\(error)"
            if let previous, (try? await activate(previous, leaving: nil)) != nil {
                throw ControlError(.unavailable, "camera '\(target.name)' failed to start (\(reason)); still on '\(previous.name)'")
            }
            throw ControlError(.unavailable, "camera '\(target.name)' failed to start (\(reason)); no camera is active")
        }
        let latency = arrived.map { ($0 - started) / .milliseconds(1) }
        return SwitchResult(active: target.name, previous: previous?.name, switched: true, latencyMs: latency)
    }

    /// Makes `target` the active camera; returns when its first frame reached the encoder input (nil if that was
    /// not seen within a second). An always-on camera that is streaming takes over directly; otherwise the filler
    /// takes over, the previous camera stops (freeing the bus), and `target` starts and must deliver a frame. Each
    /// move of the selector is a `Handover` on a frame boundary, so no output slot is left empty or filled twice.
    @discardableResult
    private func activate(_ target: CameraSlot, leaving previous: CameraSlot?) async throws -> ContinuousClock.Instant? {
        let started = ContinuousClock.now
        let arrived: ContinuousClock.Instant?
        if target.config.alwaysOn, target.isRunning, target.state.withLock({ $0 }) == .standby {
            arrived = await handOver(to: target.selectorPad)
        } else {
            await showFiller()
            active = nil
            if let previous {
                previous.state.withLock { $0 = .standby }
                if !previous.config.alwaysOn { try? await blocking { previous.stop() } }
            }
            target.state.withLock { $0 = .starting }
            let handover = prepareHandover(to: target.selectorPad)
            do {
                let pipeline = graph.pipeline
                let firstFrame = try await blocking { try target.start(following: pipeline) }
                guard await firstFrame.wait(timeout: Self.startTimeout) != nil else {
                    throw ControlError(.unavailable, "no frame within \(Self.startTimeout)")
                }
            } catch {
                handover?.cancel()
                if !target.config.alwaysOn { try? await blocking { target.stop() } }
                let reason = (error as? GStreamerError)?.description ?? "\(error)"
                target.state.withLock { $0 = .error(reason) }
                events.publish("camera_failed", ["camera": target.name, "reason": reason])
                logger.error("camera '\(target.name)' failed to start: \(reason)")
                throw error
            }
            arrived = await complete(handover, to: target.selectorPad)
            await stopFiller()
        }
        if let previous, previous !== target {
            previous.state.withLock { if $0 == .active { $0 = .standby } }
            if !previous.config.alwaysOn, previous.isRunning { try? await blocking { previous.stop() } }
        }
        target.state.withLock { $0 = .active }
        active = target
        activations.append(target.name)
        let latency = ((arrived ?? .now) - started) / .milliseconds(1)
        events.publish("camera_switched", ["from": previous?.name ?? "", "to": target.name, "latency_ms": String(format: "%.1f", latency)])
        logger.info("camera '\(target.name)' active", metadata: ["previous": "\(previous?.name ?? "-")", "latency_ms": "\(String(format: "%.1f", latency))"])
        return arrived
    }

    /// Longest wait for the shown source to reach a handover's boundary before the selector moves anyway.
    static let handoverTimeout: Duration = .seconds(1)

    /// Starts a handover from the shown pad to `pad` (nil when `pad` is already shown).
    private func prepareHandover(to pad: Pad) -> Handover? {
        guard pad !== shownPad else { return nil }
        let handover = Handover(selector: graph.selector, from: shownPad, to: pad, flow: graph.flow)
        handover.begin()
        return handover
    }

    /// Waits for a handover to move the selector (forcing it after `handoverTimeout`), then for the new source's
    /// first frame at the encoder input.
    private func complete(_ handover: Handover?, to pad: Pad) async -> ContinuousClock.Instant? {
        guard let handover else { return nil }
        if await handover.completed.wait(timeout: Self.handoverTimeout) == nil {
            logger.warning("the shown source did not reach the switch point within \(Self.handoverTimeout): switching now")
            handover.force()
        }
        shownPad = pad
        return await handover.arrival.wait(timeout: .seconds(1))
    }

    @discardableResult
    private func handOver(to pad: Pad) async -> ContinuousClock.Instant? {
        await complete(prepareHandover(to: pad), to: pad)
    }

    private func handleFailure(_ name: String, reason: String) async {
        guard let slot = slots.first(where: { $0.name == name }) else { return }
        if case .error = slot.state.withLock({ $0 }) { return }
        let wasActive = slot === active
        if wasActive {
            await showFillerNow()
            active = nil
        }
        slot.state.withLock { $0 = .error(reason) }
        try? await blocking { slot.stop() }
        events.publish("camera_failed", ["camera": name, "reason": reason])
        logger.error("camera '\(name)' failed: \(reason)\(wasActive ? "; the output continues on the filler" : "")")
        if wasActive { await activateFirstWorking(after: slot) }
    }

    /// Tries usable cameras in configuration order, starting after `failed`; stays on the filler if none works.
    private func activateFirstWorking(after failed: CameraSlot?) async {
        let start = failed.flatMap { f in slots.firstIndex { $0 === f } }.map { $0 + 1 } ?? 0
        let order = slots.indices.map { slots[(start + $0) % slots.count] }
        for candidate in order where candidate !== failed && isUsable(candidate) {
            if (try? await activate(candidate, leaving: nil)) != nil { return }
        }
        logger.error("no camera is working: the output shows the filler")
    }

    private func checkDevices() async {
        for slot in slots where slot.kind == "v4l2" {
            let present = FileManager.default.fileExists(atPath: slot.config.device)
            let state = slot.state.withLock { $0 }
            if case .missing = state, present {
                slot.state.withLock { $0 = .standby }
                events.publish("camera_available", ["camera": slot.name, "device": slot.config.device])
                logger.notice("camera '\(slot.name)': \(slot.config.device) appeared")
            } else if !present, state == .standby || state.name == "error" {
                slot.state.withLock { $0 = .missing("device \(slot.config.device) not present") }
                events.publish("camera_missing", ["camera": slot.name, "device": slot.config.device])
            }
        }
        if active == nil { await activateFirstWorking(after: nil) }
    }

    private func isUsable(_ slot: CameraSlot) -> Bool {
        switch slot.state.withLock({ $0 }) {
        case .standby, .error: true  // a camera that failed earlier gets another chance
        case .active, .starting, .missing: false
        }
    }

    private func nextUsable(after current: CameraSlot?) -> CameraSlot? {
        let start = current.flatMap { c in slots.firstIndex { $0 === c } }.map { $0 + 1 } ?? 0
        return slots.indices.map { slots[(start + $0) % slots.count] }.first { $0 !== current && isUsable($0) }
    }

    private func select(_ pad: Pad) {
        graph.selector.set("active-pad", pad: pad)
        shownPad = pad
    }

    /// Shows the black filler, starting it first (it only runs while shown: it costs about 0.8 % of a core),
    /// through a handover, so the shown camera's last frames still make it out.
    private func showFiller() async {
        await startFiller()
        await handOver(to: graph.fillerPad)
    }

    /// A camera failed: show the filler at once (the grid repeats the last frame until the filler's first frame).
    private func showFillerNow() async {
        await startFiller()
        select(graph.fillerPad)
    }

    private func startFiller() async {
        let filler = graph.filler, pipeline = graph.pipeline
        if !filler.isRunning { _ = try? await blocking { try filler.start(following: pipeline) } }
    }

    private func stopFiller() async {
        let filler = graph.filler
        if filler.isRunning { try? await blocking { filler.stop() } }
    }
}
