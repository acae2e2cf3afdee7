import ApplianceBase
import Engine
import Supervision

/// Whether an encoder that is fed gives anything back: frames keep going in while no access unit comes out of the
/// parser for `stallAfter`. A pause in its input (the gate closed: nothing records or streams) ends the wait, as an
/// encoder may hold its last frames until more come (hardware encoders hold a few). Fed the chain's counters a sample
/// at a time with the sample's time, so a test judges it as the daemon does.
package struct EncoderOutputJudge: Sendable {
    package let stallAfter: Duration
    private var last: EncoderChain.Counters?
    private var waitingSince: ContinuousClock.Instant?

    package init(stallAfter: Duration) { self.stallAfter = stallAfter }

    /// Why the encoder counts as stopped, or nil.
    package mutating func sample(_ counters: EncoderChain.Counters, at now: ContinuousClock.Instant) -> String? {
        defer { last = counters }
        guard let last, counters.encoded == last.encoded, counters.admitted > last.admitted else {
            waitingSince = nil
            return nil
        }
        let since = waitingSince ?? now
        waitingSince = since
        let waited = now - since
        guard waited >= stallAfter else { return nil }
        return "no output for \(FlowJudge.seconds(waited)) s while frames went in"
    }
}
