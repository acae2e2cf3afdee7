import ApplianceBase
import ApplianceProtocol
import Foundation
import GStreamerKit
import Logging

/// Switching itself: handing the output from one source to another on a frame boundary (see `Handover`).
extension CameraSwitcher {
    func performSwitch(_ choice: Command.CameraChoice) async throws -> SwitchResult {
        let target: CameraSlot
        switch choice {
        case .named(let name):
            guard let found = slots.first(where: { $0.name == name }) else {
                throw ApplianceError(
                    .notFound, "no camera named '\(name)' (cameras: \(slots.map(\.name).joined(separator: ", ")))")
            }
            target = found
        case .next:
            guard let next = nextUsable(after: active) else {
                let states = slots.map { "\($0.name): \($0.state.withLock { $0 }.name)" }.joined(separator: ", ")
                throw ApplianceError(.unavailable, "no other usable camera (\(states))")
            }
            target = next
        }
        if target === active { return SwitchResult(active: target.name, previous: target.name, switched: false) }
        if case .missing(let reason) = target.state.withLock({ $0 }) {
            throw ApplianceError(.unavailable, "camera '\(target.name)' is missing: \(reason)")
        }
        // Refused before the shown camera is touched: nothing can be done with it until that start returns.
        if target.isStuck, case .error(let reason) = target.state.withLock({ $0 }) {
            throw ApplianceError(
                .unavailable, "camera '\(target.name)' cannot start: \(reason); its start has not returned yet")
        }
        let previous = active
        let started = ContinuousClock.now
        let arrived: ContinuousClock.Instant?
        do {
            arrived = try await activate(target, leaving: previous)
        } catch {
            let reason = "\(error)"
            if let previous, active === previous {  // it started beside: the shown camera was never left
                throw ApplianceError(
                    .unavailable, "camera '\(target.name)' failed to start (\(reason)); still on '\(previous.name)'")
            }
            if let previous, (try? await activate(previous, leaving: nil)) != nil {
                throw ApplianceError(
                    .unavailable, "camera '\(target.name)' failed to start (\(reason)); still on '\(previous.name)'")
            }
            throw ApplianceError(
                .unavailable, "camera '\(target.name)' failed to start (\(reason)); no camera is active")
        }
        let latency = arrived.map { ($0 - started) / .milliseconds(1) }
        preferred = target
        return SwitchResult(active: target.name, previous: previous?.name, switched: true, latencyMs: latency)
    }

    /// Makes `target` the active camera; returns when its first frame reached the encoder input (nil if that was
    /// not seen within a second). An always-on camera that is streaming takes over directly; a camera that starts
    /// beside the others (a network camera: it shares no bus) starts while the shown source stays shown and takes
    /// over at its first frame; otherwise the filler takes over, the previous camera stops (freeing the bus), and
    /// `target` starts and must deliver a frame. Each move of the selector is a `Handover` on a frame boundary, so no
    /// output slot is left empty or filled twice.
    @discardableResult
    func activate(_ target: CameraSlot, leaving previous: CameraSlot?) async throws -> ContinuousClock.Instant? {
        let started = ContinuousClock.now
        let arrived: ContinuousClock.Instant?
        if target.config.alwaysOn, target.isRunning, target.state.withLock({ $0 }) == .standby {
            arrived = await handOver(to: target.selectorPad)
        } else if target.startsBesideOthers {
            target.state.withLock { $0 = .starting }
            try await startAwaitingFirstFrame(target, handover: nil)
            arrived = await handOver(to: target.selectorPad)
        } else {
            await showFiller()
            setActive(nil)
            if let previous {
                previous.state.withLock { $0 = .standby }
                if !previous.config.alwaysOn { await previous.stop() }
            }
            target.state.withLock { $0 = .starting }
            let handover = prepareHandover(to: target.selectorPad)
            try await startAwaitingFirstFrame(target, handover: handover)
            arrived = await complete(handover, to: target.selectorPad)
        }
        if let previous, previous !== target {
            previous.state.withLock { if $0 == .active { $0 = .standby } }
            if !previous.config.alwaysOn, previous.isRunning { await previous.stop() }
        }
        target.state.withLock { $0 = .active }
        retries[target.name] = nil
        setActive(target)
        let latency = ((arrived ?? .now) - started) / .milliseconds(1)
        events.publish(
            .cameraSwitched(
                CameraSwitched(from: previous?.name, to: target.name, latencyMs: (latency * 10).rounded() / 10)))
        logger.info(
            "camera '\(target.name)' active",
            metadata: ["previous": "\(previous?.name ?? "-")", "latency_ms": "\(String(format: "%.1f", latency))"])
        return arrived
    }

    /// Starts `target` and waits for its first frame (or its source's failure). A camera that does not deliver is
    /// stopped, marked failed (its backoff counts on), and the error is thrown; `handover` is then cancelled.
    private func startAwaitingFirstFrame(_ target: CameraSlot, handover: Handover?) async throws {
        do {
            let pipeline = graph.pipeline
            let firstFrame = try await target.start(following: pipeline, deadline: Self.startDeadline(target))
            logMode(of: target)
            let timeout = Self.firstFrameTimeout(target)
            guard let delivered = await firstFrame.wait(timeout: timeout) else {
                let why = target.network?.stats?.noVideoTrack == true ? ": the camera's stream has no video track" : ""
                throw ApplianceError(.unavailable, "no frame within \(timeout)\(why)")
            }
            guard delivered else {
                throw ApplianceError(.unavailable, target.startFailureReason ?? "its source failed")
            }
        } catch let absent as CameraSlot.NoWriter {
            handover?.cancel()
            waitForWriter(target, on: absent.path, reason: absent.description)
            throw ApplianceError(.unavailable, absent.description)
        } catch {
            handover?.cancel()
            if !target.config.alwaysOn { await target.stop() }
            let reason = (error as? GStreamerError)?.description ?? (error as? ApplianceError)?.message ?? "\(error)"
            target.state.withLock { $0 = .error(reason) }
            noteFailure(of: target)
            events.publish(.cameraFailed(CameraFailure(camera: target.name, reason: reason)))
            logger.error("camera '\(target.name)' failed to start: \(reason)")
            throw error
        }
    }

    /// Says which mode a V4L2 camera started in, and warns when it falls short of the configured rate or size.
    private func logMode(of slot: CameraSlot) {
        guard let choice = slot.mode.withLock({ $0 }) else { return }
        let metadata: Logger.Metadata = ["device": "\(slot.config.device)", "mode": "\(choice.summary)"]
        if choice.reachesRate && choice.coversSize {
            logger.info("camera '\(slot.name)': mode \(choice.summary) (\(choice.reason))", metadata: metadata)
        } else {
            logger.warning("camera '\(slot.name)': mode \(choice.summary): \(choice.reason)", metadata: metadata)
        }
    }

    /// Longest wait for the shown source to reach a handover's boundary before the selector moves anyway.
    static var handoverTimeout: Duration { .seconds(1) }

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
            logger.warning(
                "the shown source did not reach the switch point within \(Self.handoverTimeout): switching now")
            handover.force()
        }
        shownPad = pad
        return await handover.arrival.wait(timeout: .seconds(1))
    }

    @discardableResult
    private func handOver(to pad: Pad) async -> ContinuousClock.Instant? {
        await complete(prepareHandover(to: pad), to: pad)
    }

    /// Shows the black filler through a handover, so the shown camera's last frames still make it out.
    private func showFiller() async {
        await startFiller()
        await handOver(to: graph.fillerPad)
    }

    /// A camera failed: show the filler at once (the grid repeats the last frame until the filler's first frame).
    func showFillerNow() async {
        await startFiller()
        graph.selector.set("active-pad", pad: graph.fillerPad)
        shownPad = graph.fillerPad
    }

    /// The filler runs from the graph's start to its stop, shown or not (about 0.8 % of a core): a camera that fails
    /// is replaced by its next frame. Started on demand, it took a while to give its first frame on a busy machine
    /// and once failed to negotiate at all (the chaos soak: "camera-filler/convert: not negotiated" as an RTSP camera
    /// dropped, a hole of 1.6 s in the clip). Started again here only if something stopped it.
    private func startFiller() async {
        let filler = graph.filler
        let pipeline = graph.pipeline
        if !filler.isRunning { _ = try? await filler.start(following: pipeline, deadline: .seconds(10)) }
    }
}
