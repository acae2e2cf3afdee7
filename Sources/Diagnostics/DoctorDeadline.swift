import ApplianceBase
import Foundation

/// Doctor must answer even when a call never returns: statfs on a dead network mount, a camera driver stuck in
/// open, a GStreamer provider that probes hardware for ever. Each blocking check runs on a thread of its own and
/// is given up after a few seconds (the thread is left behind; doctor exits soon after).
enum DoctorDeadline {
    /// Runs `work` on its own thread; nil when it has not finished within `seconds`.
    static func run<T: Sendable>(_ label: String, seconds: Double, _ work: @escaping @Sendable () -> T) async -> T? {
        let result = OneShot<T>()
        let thread = Thread { result.fire(work()) }
        thread.name = "doctor-\(label)"
        thread.start()
        return await result.wait(timeout: .milliseconds(Int(seconds * 1000)))
    }

    /// A blocking check with a deadline: on time-out, a FAIL line saying what did not answer.
    static func check(
        _ name: String, seconds: Double, what: String,
        _ work: @escaping @Sendable () -> DoctorCheck
    ) async -> DoctorCheck {
        await run(name, seconds: seconds, work)
            ?? .fail(
                name, "\(what) did not answer within \(Int(seconds)) s",
                fix: "look for a hung device or mount (dmesg), then run doctor again")
    }
}

extension DoctorDeadline {
    /// Async work with a deadline; nil when it has not finished in time. The work runs in a task of its own that
    /// is cancelled and left behind on time-out (a task group would wait for it to finish).
    static func runAsync<T: Sendable>(_ label: String, seconds: Double, _ work: @escaping @Sendable () async -> T) async
        -> T?
    {
        let result = OneShot<T>()
        let task = Task { result.fire(await work()) }
        let value = await result.wait(timeout: .milliseconds(Int(seconds * 1000)))
        if value == nil { task.cancel() }
        return value
    }
}
