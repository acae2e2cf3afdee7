import ApplianceBase
import ApplianceProtocol
import AsyncAlgorithms
import Logging
import ServiceLifecycle
import Settings

/// The `[[output]] role = "recording"` lights: on while recording (any channel, or the one the output names), off
/// when idle, blinking (250 ms on, 250 ms off, in software for every kind) on a fault — storage missing, full or
/// low, a camera failed or missing, backup paused. It follows the event stream and, on the events that matter,
/// asks the one entry point (`status`, `cameras`, `backup.status`) rather than keeping guesses of its own;
/// `RecordingLightPolicy` decides. A light
/// that cannot be opened or written is `failed` in status with its reason, retried every few seconds, and never
/// stops the daemon. At shutdown every light goes off.
package final class RecordingLight: Service, Sendable, CustomStringConvertible {
    package var description: String { "RecordingLight" }

    /// Half a blink period.
    static let blink = Duration.milliseconds(250)
    /// How often a failed light is opened again.
    package static let retry = Duration.seconds(5)
    /// How often status and backup are asked again without an event (capacity drifts as clips are written).
    package static let refresh = Duration.seconds(30)

    private let panel: LightPanel
    private let events: EventHub
    private let perform: @Sendable (Command) async throws(ApplianceError) -> CommandResult
    private let minFreeMb: Int

    package init(
        outputs: [ApplianceConfig.Output], board: OutputBoard, events: EventHub, minFreeMb: Int, logger: Logger,
        perform: @escaping @Sendable (Command) async throws(ApplianceError) -> CommandResult,
        open: @escaping @Sendable (ApplianceConfig.Output) throws(LightError) -> any Light = Lights.open
    ) {
        panel = LightPanel(outputs: outputs.filter { $0.role == .recording }, board: board, logger: logger, open: open)
        (self.events, self.perform, self.minFreeMb) = (events, perform, minFreeMb)
    }

    package func run() async throws {
        let subscription = events.subscribe()
        defer { events.unsubscribe(subscription.id) }
        await panel.start(await ask(.all))
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await record in subscription.events.cancelOnGracefulShutdown() {
                    let refresh = await self.panel.fold(record.event)  // what the event says shows at once
                    if !refresh.isEmpty { await self.panel.apply(await self.ask(refresh)) }
                }
            }
            group.addTask {
                let ticksPerRefresh = Int(Self.refresh / Self.blink)
                var ticks = 0
                for await _ in AsyncTimerSequence(interval: Self.blink, clock: .continuous).cancelOnGracefulShutdown() {
                    await self.panel.tick()
                    ticks += 1
                    if ticks % ticksPerRefresh == 0 { await self.panel.apply(await self.ask([.status, .backup])) }
                }
            }
        }
        await panel.shutdown()
    }

    /// Asks the entry point for the parts of the state `refresh` names; a refused or failed command answers
    /// nothing and leaves that part as it was.
    private func ask(_ refresh: RecordingLightPolicy.Refresh) async -> LightAnswers {
        var answers = LightAnswers(minFreeMb: minFreeMb)
        if refresh.contains(.status), case .status(let s)? = try? await perform(.status) { answers.status = s }
        if refresh.contains(.cameras), case .cameras(let c)? = try? await perform(.cameras) { answers.cameras = c }
        if refresh.contains(.backup), case .backupStatus(let b)? = try? await perform(.backupStatus) {
            answers.backup = b
        }
        return answers
    }
}

/// What the entry point answered, applied to the facts as they are when it arrives (not as they were asked).
struct LightAnswers: Sendable {
    package var minFreeMb: Int
    package var status: StatusReport?
    package var cameras: CamerasReport?
    package var backup: BackupStatus?

    package func apply(to facts: inout LightFacts) {
        if let status { facts.apply(status, minFreeMb: minFreeMb) }
        if let cameras { facts.apply(cameras) }
        if let backup { facts.apply(backup) }
    }
}

/// The lights' own state: the facts, the blink phase, and each light's device; one actor so that events and the
/// blink never write a light at the same time.
actor LightPanel {
    private final class Slot {
        let config: ApplianceConfig.Output
        var light: (any Light)?
        /// What was last written (nil: unknown, write whatever comes next).
        var lit: Bool?
        var failure: String?
        var retryAt: ContinuousClock.Instant?
        /// What this light shows: it follows every channel, or the one its `[[output]]` names.
        var show = LightShow.off
        init(config: ApplianceConfig.Output) { self.config = config }
    }

    private var facts = LightFacts()
    private var phase = true
    private let slots: [Slot]
    private let board: OutputBoard
    private let logger: Logger
    private let open: @Sendable (ApplianceConfig.Output) throws(LightError) -> any Light

    package init(
        outputs: [ApplianceConfig.Output], board: OutputBoard, logger: Logger,
        open: @escaping @Sendable (ApplianceConfig.Output) throws(LightError) -> any Light
    ) {
        slots = outputs.map(Slot.init)
        (self.board, self.logger, self.open) = (board, logger, open)
    }

    /// The first facts: every light is opened and set (off, unless the appliance records already or has a fault).
    package func start(_ answers: LightAnswers) {
        answers.apply(to: &facts)
        for slot in slots { slot.show = RecordingLightPolicy.show(facts, channel: slot.config.channel) }
        drive()
    }

    /// Folds an event into the facts and says what to ask the entry point again.
    package func fold(_ event: ApplianceEvent) -> RecordingLightPolicy.Refresh {
        let refresh = RecordingLightPolicy.fold(event, into: &facts)
        update()
        return refresh
    }

    package func apply(_ answers: LightAnswers) {
        answers.apply(to: &facts)
        update()
    }

    /// Half a blink period has passed: the blink turns over, failed lights are tried again when due.
    package func tick() {
        phase.toggle()
        drive()
    }

    /// Off, and the devices released.
    package func shutdown() {
        for slot in slots { slot.show = .off }
        drive()
        for slot in slots {
            slot.light?.close()
            slot.light = nil
        }
    }

    /// Drives the lights at once when what they show changes.
    private func update() {
        let shows = slots.map { RecordingLightPolicy.show(facts, channel: $0.config.channel) }
        guard shows != slots.map(\.show) else { return }
        if !slots.contains(where: \.show.isBlinking) { phase = true }  // a fault shows at once
        for (slot, show) in zip(slots, shows) { slot.show = show }
        drive()
    }

    private func drive() {
        let now = ContinuousClock.now
        for slot in slots {
            let lit = slot.show.lit(phase: phase)
            if slot.light == nil {
                if let retryAt = slot.retryAt, now < retryAt { continue }
                do {
                    slot.light = try open(slot.config)
                    slot.lit = nil
                    if slot.failure != nil { logger.notice("light '\(slot.config.label)' works again") }
                    slot.failure = nil
                } catch {
                    fail(slot, error.description, now: now)
                    continue
                }
            }
            guard let light = slot.light else { continue }
            if slot.lit != lit {
                do {
                    try light.set(lit)
                    slot.lit = lit
                } catch {
                    light.close()
                    slot.light = nil
                    fail(slot, error.description, now: now)
                    continue
                }
            }
            board.update(status(slot, device: light.device))
        }
    }

    private func fail(_ slot: Slot, _ reason: String, now: ContinuousClock.Instant) {
        if slot.failure != reason {
            logger.warning(
                """
                light '\(slot.config.label)' does not work: \(reason); trying again every \
                \(RecordingLight.retry.components.seconds) s
                """
            )
        }
        (slot.failure, slot.retryAt) = (reason, now + RecordingLight.retry)
        var s = status(slot, device: Lights.device(slot.config))
        (s.state, s.detail) = (.failed, reason)
        board.update(s)
    }

    private func status(_ slot: Slot, device: String) -> OutputStatus {
        let c = slot.config
        var s = OutputStatus(label: c.label, kind: c.kind.rawValue, role: c.role.rawValue, device: device, state: .off)
        switch slot.show {
        case .off: s.state = .off
        case .on: s.state = .on
        case .blinking(let fault): (s.state, s.detail) = (.blinking, fault)
        }
        return s
    }
}

extension LightShow {
    var isBlinking: Bool { if case .blinking = self { true } else { false } }
}
