import ApplianceBase
import Foundation
import TestSupport

/// A helper program that reports as JSON lines on stdout (the ONVIF clients): its lines are collected as they come,
/// and a test waits for the one it needs. Its stdin stays open until `closeInput()`; it is stopped on deinit.
final class JSONLinesProcess: @unchecked Sendable {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let lock = NSLock()
    private var collected: [[String: Any]] = []
    private var errors = ""
    /// Bytes after the last newline (only the reading handler touches it, one call at a time).
    private var pending = Data()
    /// The program's stdout reached its end (it exited and all it wrote was read).
    private var outputEnded = false

    init(_ executable: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        let errorPipe = Pipe()
        process.standardError = errorPipe
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in self?.received(handle.availableData) }
        errorPipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            self?.lock.withLock { self?.errors += text }
        }
        try process.run()
    }

    private func received(_ data: Data) {
        if data.isEmpty { lock.withLock { outputEnded = true } }
        pending.append(data)
        while let newline = pending.firstIndex(of: 0x0A) {
            let line = pending[pending.startIndex..<newline]
            pending = Data(pending[pending.index(after: newline)...])
            if let object = (try? JSONSerialization.jsonObject(with: line)) as? [String: Any] {
                lock.withLock { collected.append(object) }
            }
        }
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    var lines: [[String: Any]] { lock.withLock { collected } }
    var stderr: String { lock.withLock { errors } }

    /// The first line that satisfies `match`, waiting up to `timeout` for it; nil if none came (or the program ended).
    func waitFor(_ timeout: TimeInterval, _ match: ([String: Any]) -> Bool) -> [String: Any]? {
        Poll.until(timeout: timeout) { lines.contains(where: match) || !process.isRunning }
        // An ended program's last lines: read once its output reaches its end.
        if !process.isRunning { Poll.until(timeout: 1) { lock.withLock { outputEnded } } }
        return lines.first(where: match)
    }

    /// The first line whose `step` is `step`.
    func step(_ step: String, within timeout: TimeInterval) -> [String: Any]? {
        waitFor(timeout) { $0["step"] as? String == step }
    }

    func closeInput() { try? input.fileHandleForWriting.close() }
}
