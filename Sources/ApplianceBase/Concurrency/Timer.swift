import Dispatch

/// Runs `work` once `delay` has passed, on a dispatch timer: no task sleeps for it, so nothing can cancel or miss it.
/// The waits built on it (`OneShot`, `WakeSignal`) resume a continuation from `work`, whichever comes first.
package func after(_ delay: Duration, _ work: @escaping @Sendable () -> Void) {
    let nanoseconds = min(max(0, delay / .nanoseconds(1)), 1e15)  // at most ~11 days: a deadline, not for ever
    DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds)), execute: work)
}
