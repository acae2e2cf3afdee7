import ApplianceApp
import ButtonsAndLights
import Foundation
import TestSupport
import XCTest

/// A FIFO standing in for /dev/input/eventN: the test writes real 24-byte `struct input_event` records into it,
/// each gesture in one `write` (atomic: under PIPE_BUF), with timestamps of its own clock that make the gesture
/// unambiguous. Nothing here sleeps to shape a gesture: the daemon judges the records' times.
final class FifoKeyboard {
    let path: String
    private var fd: Int32 = -1
    /// The device clock of the records written, in ms; every gesture starts well after the last one.
    private(set) var clockMs: Int64 = 1_000_000

    static let evSyn: UInt16 = 0, evKey: UInt16 = 1, keySpace: UInt16 = 57, keyA: UInt16 = 30

    init(path: String, create: Bool = true) throws {
        self.path = path
        if create { try make() }
    }

    deinit { closeWriter() }

    func make() throws {
        guard mkfifo(path, 0o600) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    func remove() { unlink(path) }

    /// Opens the writing end once the daemon has opened the reading end (a FIFO refuses a writer without one).
    func connect(timeout: TimeInterval = 10) async throws {
        var opened: Int32 = -1
        await Poll.asyncUntil(timeout: timeout, every: 0.02) {  // waiting for the reader to open, not shaping a gesture
            opened = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            return opened >= 0
        }
        if opened >= 0 {
            _ = fcntl(opened, F_SETFL, fcntl(opened, F_GETFL) & ~O_NONBLOCK)
            fd = opened
            return
        }
        throw FifoKeyboardError(message: "no reader opened \(path) within \(timeout) s")
    }

    func closeWriter() {
        if fd >= 0 { close(fd) }
        fd = -1
    }

    /// One `struct input_event`, laid out as on 64-bit Linux: tv_sec, tv_usec (Int64 each), type, code (UInt16),
    /// value (Int32), little endian.
    static func record(ms: Int64, type: UInt16, code: UInt16, value: Int32) -> Data {
        InputEventRecord.encoded(ms: ms, type: type, code: code, value: value)
    }

    /// Records at offsets (ms) from a new start 10 s after the last gesture: (offset, code, value); each key
    /// record is followed by a SYN_REPORT at the same time, as a kernel writes them.
    func gesture(_ steps: [(at: Int64, code: UInt16, value: Int32)], synAt: Int64? = nil) throws {
        let start = clockMs + 10_000
        var data = Data()
        for step in steps {
            data += Self.record(ms: start + step.at, type: Self.evKey, code: step.code, value: step.value)
            data += Self.record(ms: start + step.at, type: Self.evSyn, code: 0, value: 0)
        }
        if let synAt { data += Self.record(ms: start + synAt, type: Self.evSyn, code: 0, value: 0) }
        clockMs = start + max(steps.map(\.at).max() ?? 0, synAt ?? 0)
        try write(data)
    }

    /// A press and release of `key`, `holdMs` apart.
    func tap(holdMs: Int64 = 80, key: UInt16 = keySpace, synAt: Int64? = nil) throws {
        try gesture([(0, key, 1), (holdMs, key, 0)], synAt: synAt)
    }

    func write(_ data: Data) throws {
        precondition(data.count <= 4096, "one atomic write")
        let n = data.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard n == data.count else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }
}

struct FifoKeyboardError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
