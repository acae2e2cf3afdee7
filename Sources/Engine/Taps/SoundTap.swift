import ApplianceProtocol
import Foundation
import Synchronization

/// The microphone's level, from the `level` element on the sound chain (RMS and peak in dBFS, ten times a second,
/// posted on the bus): the latest for status and metrics, and a stream for `SoundService` when `[sound] enabled`.
public final class SoundTap: Sendable {
    public struct Reading: Sendable, Equatable {
        /// RMS and peak of the loudest channel, dBFS; digital silence reads `SoundTap.floorDb`.
        public let rmsDb: Double
        public let peakDb: Double
        public let at: Date
    }

    /// What digital silence (GStreamer's -inf) reads as: JSON and Prometheus take no infinity.
    public static let floorDb = -120.0

    public struct State: Sendable, Equatable {
        public var latest: Reading?
        public var active = false
        public var events: UInt64 = 0
    }

    /// Whether sound detection runs on these readings (`[sound] enabled`).
    public let detecting: Bool
    public let readings: AsyncStream<Reading>
    private let continuation: AsyncStream<Reading>.Continuation
    private let state = Mutex(State())

    package init(detecting: Bool) {
        self.detecting = detecting
        (readings, continuation) = AsyncStream.makeStream(of: Reading.self, bufferingPolicy: .bufferingNewest(16))
    }

    /// A `level` message's fields (as GStreamer writes the structure); ignored when they hold no levels.
    package func receive(levelFields fields: String, at date: Date = Date()) {
        guard let rms = Self.loudest("rms", in: fields), let peak = Self.loudest("peak", in: fields) else { return }
        let reading = Reading(rmsDb: max(Self.floorDb, rms), peakDb: max(Self.floorDb, peak), at: date)
        state.withLock { $0.latest = reading }
        continuation.yield(reading)
    }

    /// The largest of the per-channel values of `name` (`rms=(GValueArray)< -20.1, -19.8 >`); nil when absent.
    package static func loudest(_ name: String, in fields: String) -> Double? {
        guard let start = fields.range(of: "\(name)=(GValueArray)<")?.upperBound,
            let end = fields[start...].firstIndex(of: ">")
        else { return nil }
        let values = fields[start..<end].split(separator: ",").compactMap {
            Double($0.trimmingCharacters(in: .whitespaces))
        }
        return values.filter { !$0.isNaN }.max()
    }

    public var current: State { state.withLock { $0 } }

    package func update(_ body: (inout State) -> Void) { state.withLock { body(&$0) } }

    /// What `status` says of the sound.
    package var status: SoundStatus {
        let s = current
        return SoundStatus(
            levelDb: s.latest.map { ($0.rmsDb * 10).rounded() / 10 },
            peakDb: s.latest.map { ($0.peakDb * 10).rounded() / 10 },
            detecting: detecting, active: s.active, events: s.events)
    }
}
