import Foundation
import TestSupport

/// A right password sent just after wrong ones from the same address (at any door): RTSP's server cannot wait, so
/// the daemon's guessing ledger refuses it unchecked until the last failure's delay (0.5 s, doubling up to 8 s) has
/// passed. Runs `attempt` until it succeeds (exit status 0) or 20 s pass; the last outcome.
func whenLetIn(_ attempt: () throws -> ProcessOutcome) throws -> ProcessOutcome {
    var last = try attempt()
    Poll.until(timeout: 20, every: 0.5) {
        if last.status == 0 { return true }
        last = (try? attempt()) ?? last
        return last.status == 0
    }
    return last
}
