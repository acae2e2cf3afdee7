import ApplianceProtocol
import Foundation
import Logging
import SystemCalls

/// What reading one open button keeps between polls: its gesture feed, the pairing of the device's clock with the
/// local monotonic one (gestures expire on device time), and the bytes of a record not yet whole.
struct ButtonStream {
    var gestures: GestureFeed
    /// The last record's device time and the monotonic time it was read at.
    private var clock: (device: UInt64, local: UInt64)?
    private var pending: [UInt8] = []
    private var chunk: [UInt8]
    private let size: Int

    init(button: any OpenButton, recognizer: GestureRecognizer, label: String, logger: Logger) {
        gestures = GestureFeed(
            recognizer: recognizer, debounce: button.softwareDebounce.map { UInt64($0 / .nanoseconds(1)) },
            label: label, logger: logger)
        size = button.recordSize
        chunk = [UInt8](repeating: 0, count: max(size * 64, 4096))
    }

    /// How long the next poll may wait: until the next gesture deadline, at most `retry` ms.
    func pollTimeout(retry: Int32) -> Int32 {
        guard let deadline = gestures.nextDeadline, let clock else { return retry }
        let ahead: UInt64 = deadline > clock.device ? deadline - clock.device : 0
        let due: UInt64 = clock.local &+ ahead
        let now: UInt64 = InputReader.monotonicNow()
        if due <= now { return 0 }
        let ms: UInt64 = (due - now + 999_999) / 1_000_000
        return Int32(min(ms, UInt64(retry)))
    }

    /// Reads all the device has now: the gestures its records fired, in order, and why reading must end (nil: the
    /// device has no more for now).
    mutating func drain(_ button: any OpenButton) -> (fired: [InputGesture.Gesture], end: String?) {
        var fired: [InputGesture.Gesture] = []
        while true {
            let n: Int
            do {
                n = try SystemCall.run("read") {
                    chunk.withUnsafeMutableBytes { Glibc.read(button.fd, $0.baseAddress, $0.count) }
                }
            } catch {
                switch error.code {
                case EAGAIN: return (fired, nil)
                case ENODEV: return (fired, "unplugged")
                default: return (fired, "read failed: \(error.reason)")
                }
            }
            guard n > 0 else { return (fired, "end of file (the writer closed it)") }
            pending += chunk[0..<n]
            fired += takeWholeRecords(button)
        }
    }

    /// The gestures that are due by the device's clock now.
    mutating func expireNow() -> [InputGesture.Gesture] {
        guard let clock else { return [] }
        let elapsed: UInt64 = InputReader.monotonicNow() - clock.local
        return gestures.expire(until: clock.device &+ elapsed)
    }

    private mutating func takeWholeRecords(_ button: any OpenButton) -> [InputGesture.Gesture] {
        var fired: [InputGesture.Gesture] = []
        let whole = pending.count / size * size
        let size = size
        pending.withUnsafeBytes { bytes in
            for offset in stride(from: 0, to: whole, by: size) {
                let record = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + size])
                let now = InputReader.monotonicNow()
                if let edge = button.edge(from: record) {
                    clock = (edge.time, now)
                    fired += gestures.feed(edge)
                } else if let time = button.time(of: record) {
                    clock = (time, now)
                    fired += gestures.expire(until: time)
                }
            }
        }
        pending.removeFirst(whole)
        return fired
    }
}
