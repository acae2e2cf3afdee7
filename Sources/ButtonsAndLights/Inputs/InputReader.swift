import ApplianceBase
import ApplianceProtocol
import Foundation
import Logging
import SystemCalls

/// Reads one `[[input]]` on a thread of its own: opens its device (looking again every second while it is missing
/// or failing), polls it and a wake pipe, decodes whole records, debounces when the device needs it, and feeds the
/// gesture recognizer. Gestures and status changes go to `report`, which must not block (the service's
/// AsyncStream): this thread never awaits, and never takes a thread of the cooperative pool or `BlockingPool`,
/// which a button that is never pressed would hold for ever.
///
/// Time: gestures are judged in the device's time (the events' own timestamps). A deadline (the end of a long
/// press or of a double-press window) is mapped to the local clock as "the last event's device time + (monotonic
/// now − when that event was read)", so real devices and a test's synthetic timestamps are handled alike.
final class InputReader: Sendable {
    package enum Report: Sendable, Equatable {
        case status(InputStatus)
        case gesture(InputGesture.Gesture)
    }

    package let index: Int
    package let label: String
    package let kind: String
    private let device: any ButtonDevice
    private let rules: GestureRecognizer.Rules
    private let report: @Sendable (Int, Report) -> Void
    /// Each edge as read and as settled, at debug level: what a misread gesture is judged from.
    private let logger: Logger
    private let wakeRead: Int32, wakeWrite: Int32
    private let stopping = Locked(false)
    private let exited = OneShot<Void>()
    /// How long a missing or failed device is left before looking again.
    package static let retry: Int32 = 1000

    package init(
        index: Int, label: String, kind: String, device: any ButtonDevice, rules: GestureRecognizer.Rules,
        logger: Logger = Logger(label: "appliance.input"), report: @escaping @Sendable (Int, Report) -> Void
    ) throws {
        (self.index, self.label, self.kind, self.device, self.rules, self.report) = (
            index, label, kind, device, rules, report
        )
        self.logger = logger
        var fds: [Int32] = [0, 0]
        do {
            try SystemCall.run("pipe") { pipe(&fds) }
        } catch {
            throw ApplianceError(.internalError, "input '\(label)': cannot make a wake pipe: \(error.reason)")
        }
        (wakeRead, wakeWrite) = (fds[0], fds[1])
        for fd in fds {  // pipe2 needs _GNU_SOURCE, which Swift's Glibc module does not define
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
    }

    deinit {
        Glibc.close(wakeRead)
        Glibc.close(wakeWrite)
    }

    package func start() {
        let thread = Thread { [self] in
            run()
            exited.fire(())
        }
        thread.name = "input \(label)"
        thread.start()
    }

    /// Wakes the thread, and returns once it has closed the device and ended.
    package func stop() async {
        stopping.withLock { $0 = true }
        var byte: UInt8 = 1
        _ = Glibc.write(wakeWrite, &byte, 1)
        _ = await exited.wait(timeout: .seconds(10))
    }

    // MARK: - The thread

    private var isStopping: Bool { stopping.withLock { $0 } }

    private func run() {
        var last: InputStatus?
        func publish(_ state: InputStatus.State, _ detail: String?, grabbed: Bool? = nil) {
            let status = InputStatus(
                label: label, kind: kind, device: device.description, state: state, detail: detail, grabbed: grabbed)
            guard status != last else { return }
            last = status
            report(index, .status(status))
        }
        var recognizer = GestureRecognizer(rules: rules)
        while !isStopping {
            let button: any OpenButton
            do {
                button = try device.open()
            } catch {
                switch error {
                case .missing(let why): publish(.missing, why)
                case .failed(let why): publish(.failed, why)
                }
                waitForWake(timeout: Self.retry)
                continue
            }
            publish(.connected, button.note, grabbed: button.grabbed)
            let gone = read(button, &recognizer) { publish(.connected, button.note, grabbed: button.grabbed) }
            button.close()
            for gesture in recognizer.disconnect() { report(index, .gesture(gesture)) }
            guard let gone else { break }
            publish(.missing, gone)
            waitForWake(timeout: Self.retry)
        }
    }

    /// Reads until the device goes away (returns why) or the reader is stopped (returns nil).
    private func read(_ button: any OpenButton, _ recognizer: inout GestureRecognizer, changed: () -> Void) -> String? {
        var stream = ButtonStream(button: button, recognizer: recognizer, label: label, logger: logger)
        defer { recognizer = stream.gestures.recognizer }
        func emit(_ fired: [InputGesture.Gesture]) {
            for gesture in fired { report(index, .gesture(gesture)) }
        }
        while true {
            let timeout = stream.pollTimeout(retry: Self.retry)  // also how often a vanished path is noticed
            let events = Int16(POLLIN)
            var fds: [pollfd] = [
                pollfd(fd: button.fd, events: events, revents: 0), pollfd(fd: wakeRead, events: events, revents: 0),
            ]
            var ready: Int32 = -1  // interrupted: nothing ready, and no look at the path
            do {
                // Not retried: an interrupted poll goes on below with nothing ready, so due gestures still expire.
                ready = try SystemCall.run("poll", retryingInterrupted: false) { poll(&fds, 2, timeout) }
            } catch  where error.code == EINTR {
            } catch {
                return "poll failed: \(error.reason)"
            }
            if fds[1].revents != 0 {
                drainWake()
                if isStopping { return nil }
            }
            if fds[0].revents & Int16(POLLNVAL) != 0 { return "the descriptor was closed" }
            if fds[0].revents != 0 {
                let (fired, end) = stream.drain(button)
                emit(fired)
                let before = (button.note, button.grabbed)
                button.afterBatch()
                if before != (button.note, button.grabbed) { changed() }
                if let end { return end }
            }
            emit(stream.expireNow())
            if ready == 0, isGone(button.fd) { return "removed" }
        }
    }

    /// A FIFO or device node unlinked while open (a stand-in deleted, a node udev removed) has no links left.
    private func isGone(_ fd: Int32) -> Bool {
        var info = stat()
        return fstat(fd, &info) == 0 && info.st_nlink == 0
    }

    private func waitForWake(timeout: Int32) {
        guard !isStopping else { return }
        var fds: [pollfd] = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        if poll(&fds, 1, timeout) > 0 { drainWake() }
    }

    private func drainWake() {
        var bytes = [UInt8](repeating: 0, count: 16)
        while Glibc.read(wakeRead, &bytes, bytes.count) > 0 {}
    }

    static func monotonicNow() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        let seconds = UInt64(ts.tv_sec)
        let nanoseconds = UInt64(ts.tv_nsec)
        return seconds * 1_000_000_000 + nanoseconds
    }
}
