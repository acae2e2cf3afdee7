import ApplianceBase
import ApplianceProtocol
import Foundation
import GStreamerKit
import Logging
import ServiceLifecycle

/// Owns which camera feeds the encoder. Every camera operation — a switch, a failed camera, a device that came or
/// went — is a request in one queue, drained by one loop (`run`, a Service): operations happen one at a time in
/// arrival order, and a hanging one delays the next instead of piling up tasks. Switches are atomic: the new camera
/// is selected only once it delivers frames; if it cannot, the previous camera comes back. While a camera starts,
/// the black live filler keeps the output running, so a recording never sees a gap.
public actor CameraSwitcher: Service, CustomStringConvertible {
    public nonisolated var description: String { "CameraSwitcher" }
    package enum Request: Sendable {
        case switchTo(Command.CameraChoice, reply: OneShot<Result<SwitchResult, ApplianceError>>)
        case failed(camera: String, reason: String)
        case refresh
    }

    package let graph: CaptureGraph
    package let events: EventHub
    package let logger: Logger
    private(set) var active: CameraSlot?
    /// The selector's active pad (the filler's at start); `[audio] source = "camera"` follows it.
    var shownPad: Pad { didSet { graph.cameraSound?.follow(shownPad) } }
    /// Every activation in order (for the cameras used by a recording).
    private(set) var activations: [String] = []
    private nonisolated let requests: AsyncStream<Request>
    private nonisolated let queue: AsyncStream<Request>.Continuation
    /// Replies not yet given: answered with an error if the loop ends first.
    private nonisolated let waiting = Locked<[ObjectIdentifier: OneShot<Result<SwitchResult, ApplianceError>>]>([:])
    /// A refresh already queued: device polls do not pile up behind a slow operation.
    private nonisolated let refreshQueued = Locked(false)
    /// How long a started camera has to deliver its first frame.
    static let startTimeout: Duration = .seconds(5)
    /// A network camera connects, and its decoder waits for a key frame (IP cameras send one every 2-4 s): it has
    /// `start_timeout_s` for its first frame, at least `startTimeout`.
    static func firstFrameTimeout(_ slot: CameraSlot) -> Duration {
        slot.kind == "rtsp" ? max(startTimeout, startDeadline(slot)) : startTimeout
    }
    /// How long a camera's start (its source reaching PLAYING) may take: `[[camera]] start_timeout_s`.
    static func startDeadline(_ slot: CameraSlot) -> Duration { .milliseconds(Int64(slot.config.startTimeoutS * 1000)) }
    /// The camera the output should show when it can: the first configured at start, then the last one switched
    /// to. One that failed and comes back is taken back (`takeBackPreferred`).
    var preferred: CameraSlot?
    /// Failed cameras, by name: how many times in a row, and when the next try may be (`RetryBackoff`).
    package var retries: [String: RetryBackoff] = [:]
    /// How long a `switch` waits for its turn and its result before answering `busy`.
    static let replyTimeout: Duration = .seconds(30)

    package init(graph: CaptureGraph, events: EventHub, logger: Logger) {
        self.graph = graph
        self.events = events
        self.logger = logger
        shownPad = graph.fillerPad
        (requests, queue) = AsyncStream.makeStream(of: Request.self)
    }

    package var slots: [CameraSlot] { graph.cameras }
    public var activeName: String? { active?.name }
    var activationCount: Int { activations.count }

    // MARK: requests (from any task or thread)

    /// Switches to the named camera or the next usable one; answers when the switch is done.
    public nonisolated func switchTo(_ choice: Command.CameraChoice) async throws(ApplianceError) -> SwitchResult {
        let reply = OneShot<Result<SwitchResult, ApplianceError>>()
        waiting.withLock { $0[ObjectIdentifier(reply)] = reply }
        defer { _ = waiting.withLock { $0.removeValue(forKey: ObjectIdentifier(reply)) } }
        guard enqueue(.switchTo(choice, reply: reply)) else {
            throw ApplianceError(.unavailable, "the appliance is shutting down")
        }
        guard let result = await reply.wait(timeout: Self.replyTimeout) else {
            throw ApplianceError(.busy, "a camera operation is still in progress after \(Self.replyTimeout); try again")
        }
        return try result.get()
    }

    /// A camera's stream ended or errored (from the bus or a streaming thread): the output moves on.
    package nonisolated func cameraFailed(_ name: String, reason: String) {
        graph.cameras.first { $0.name == name }?.sourceFailed(reason)
        enqueue(.failed(camera: name, reason: reason))
    }

    /// Hot-plug: missing cameras whose device appeared become usable (and active if nothing is).
    nonisolated func refreshDevices() {
        guard
            refreshQueued.withLock({ queued in
                defer { queued = true }
                return !queued
            })
        else { return }
        enqueue(.refresh)
    }

    @discardableResult
    private nonisolated func enqueue(_ request: Request) -> Bool {
        if case .terminated = queue.yield(request) { return false }
        return true
    }

    // MARK: the loop

    public func run() async throws {
        for await request in requests.cancelOnGracefulShutdown() {
            // A camera call stuck in its source must not hold up a stop: shutdown cancels the operation in flight,
            // and its device calls are abandoned (`DeviceCall`).
            await cancelWhenGracefulShutdown { await self.handle(request) }
        }
        queue.finish()
        for reply in waiting.withLock({ Array($0.values) }) {
            reply.fire(.failure(ApplianceError(.unavailable, "the appliance is shutting down")))
        }
    }

    private func handle(_ request: Request) async {
        switch request {
        case .switchTo(let choice, let reply):
            do {
                reply.fire(.success(try await performSwitch(choice)))
            } catch let error as ApplianceError {
                reply.fire(.failure(error))
            } catch {
                reply.fire(.failure(ApplianceError(.internalError, "\(error)")))
            }
        case .failed(let camera, let reason):
            await handleFailure(camera, reason: reason)
        case .refresh:
            refreshQueued.withLock { $0 = false }
            await checkDevices()
        }
    }

    // MARK: start-up and reports

    /// Brings up the first camera that works (always-on cameras start too); the filler covers a total failure.
    /// Called once, before the loop runs.
    package func startInitial() async {
        preferred = slots.first
        await activateFirstWorking(after: nil)
        for slot in slots where slot.config.alwaysOn && !slot.isRunning && slot.state.withLock({ $0 }) == .standby {
            _ = try? await slot.start(following: graph.pipeline, deadline: Self.startDeadline(slot))
        }
    }

    package func report(devices: [DeviceInfo]) -> CamerasReport {
        CamerasReport(
            active: active?.name,
            cameras: slots.map { slot in
                let state = slot.state.withLock { $0 }
                let mode = slot.mode.withLock { $0 }
                let stream = slot.network?.stats
                return CameraReport(
                    name: slot.name, source: slot.kind, device: slot.deviceName,
                    state: state.name, detail: state.detail, alwaysOn: slot.config.alwaysOn,
                    mode: stream.flatMap(ReceivedSource.summary) ?? mode?.summary,
                    modeReason: stream.flatMap(ReceivedSource.detail) ?? mode?.reason, framesIn: slot.framesIn,
                    framesRepeated: slot.framesRepeated)
            }, devices: devices)
    }

    /// Cameras activated since activation number `index`, plus the one active then (for a recording's row).
    func camerasUsed(since index: Int, activeAtStart: String?) -> [String] {
        var names: [String] = activeAtStart.map { [$0] } ?? []
        for name in activations.dropFirst(index) where !names.contains(name) { names.append(name) }
        return names
    }

    func setActive(_ slot: CameraSlot?) {
        active = slot
        if let slot { activations.append(slot.name) }
    }
}
