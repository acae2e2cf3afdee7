import ApplianceProtocol
import Engine
import Logging
import Settings

/// Every channel's recorder, as the record commands and retention see them. The first channel's recorder answers
/// (its result is the command's); the other channels follow it: a start starts each that is idle, a stop stops each
/// that records, and what one of them refuses (already recording, not recording) is logged, never the command's
/// failure.
struct ChannelRecorders: RecordingInProgress {
    let first: Recorder
    let others: [ChannelRig]
    let logger: Logger

    /// The first channel's name (`main` without channel tables).
    let firstName: String

    /// `channel`: only that channel's recorder; nil: every channel, the first answering.
    func start(title: String?, channel: String? = nil) async throws -> RecordingStarted {
        if let channel { return try await recorder(named: channel).start(title: title) }
        let started = await outcome { try await first.start(title: title) }
        await follow("record start") { try await $0.start(title: title) }
        return try started.get()
    }

    func stop(title: String?, channel: String? = nil) async throws -> RecordingResult {
        if let channel { return try await recorder(named: channel).stop(title: title, reason: .request) }
        let stopped = await outcome { try await first.stop(title: title, reason: .request) }
        await follow("record stop") { try await $0.stop(title: title, reason: .request) }
        return try stopped.get()
    }

    /// The first channel toggles (or the one named); the others take the state it took.
    func toggle(title: String?, channel: String? = nil) async throws -> ToggleResult {
        if let channel { return try await recorder(named: channel).toggle(title: title) }
        let toggled = try await first.toggle(title: title)
        if toggled.started != nil {
            await follow("record start") { try await $0.start(title: title) }
        } else {
            await follow("record stop") { try await $0.stop(title: title, reason: .request) }
        }
        return toggled
    }

    /// The recorder of the channel named; not_found names the channels there are.
    private func recorder(named channel: String) throws -> Recorder {
        if channel == firstName { return first }
        if let rig = others.first(where: { $0.name == channel }) { return rig.recorder }
        throw unknown(channel)
    }

    /// The live graph of the channel named, for what reads its picture (a snapshot); nil: the first channel's.
    func graph(named channel: String?) throws -> CaptureGraph? {
        try rig(named: channel)?.graph
    }

    /// The other channel named (nil for the first channel, or none named); not_found names the channels there are.
    func rig(named channel: String?) throws -> ChannelRig? {
        guard let channel, channel != firstName else { return nil }
        if let rig = others.first(where: { $0.name == channel }) { return rig }
        throw unknown(channel)
    }

    private func unknown(_ channel: String) -> ApplianceError {
        .noChannel(named: channel, among: [firstName] + others.map(\.name))
    }

    var activeID: String? { get async { await first.activeID } }

    var isRecording: Bool {
        get async {
            if await first.isRecording { return true }
            for rig in others where await rig.recorder.isRecording { return true }
            return false
        }
    }

    func stopForFullStorage() async {
        await first.stopForFullStorage()
        for rig in others { await rig.recorder.stopForFullStorage() }
    }

    /// Applies `action` to every other channel's recorder in turn; a refusal is one log line naming the channel.
    private func follow(_ what: String, _ action: (Recorder) async throws -> some Sendable) async {
        for rig in others {
            do {
                _ = try await action(rig.recorder)
            } catch let error as ApplianceError where error.code == .conflict {
                logger.info("channel \(rig.name): \(what): \(error.message)")
            } catch {
                logger.error("channel \(rig.name): \(what) failed: \(error)")
            }
        }
    }
}

/// The outcome of async work, kept to be thrown after other work was done.
private func outcome<T>(_ work: () async throws -> T) async -> Result<T, any Error> {
    do { return .success(try await work()) } catch { return .failure(error) }
}
