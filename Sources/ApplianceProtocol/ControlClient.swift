import Foundation
import SystemCalls

/// A small blocking client for the control socket, used by `appliance ctl` and the tests.
/// Not thread-safe: one connection per thread.
public final class ControlClient {
    public struct ClientError: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    private let fd: Int32
    private var buffer = Data()

    /// Connects; `timeout` bounds each read and write in seconds (0: wait for ever, for event streams).
    public init(path: String, timeout: Double = 30) throws {
        // The descriptor is stored only once connected: a class whose stored properties are all set runs its
        // deinit when init throws, and deinit closing it a second time closed whatever descriptor another thread
        // had been given in between (libudev's and libpulse's, in the daemon probing a stale socket: both aborted).
        let fd: Int32
        do {
            fd = try SystemCall.run("socket") {
                socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            }
        } catch {
            throw ClientError(description: "cannot create a socket: \(error.reason)")
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            throw ClientError(description: "socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        do {
            try SystemCall.run("connect", retryingInterrupted: false) {
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                    }
                }
            }
        } catch {
            close(fd)
            throw ClientError(description: "cannot connect to \(path): \(error.reason) (is `appliance run` running?)")
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Sends raw bytes (tests use this for malformed input).
    public func send(raw: Data) throws {
        var offset = 0
        while offset < raw.count {
            let written: Int
            do {
                written = try SystemCall.run("write") {
                    raw.withUnsafeBytes { write(fd, $0.baseAddress! + offset, raw.count - offset) }
                }
            } catch {
                throw ClientError(description: "write failed: \(error.reason)")
            }
            guard written > 0 else { throw ClientError(description: "write failed: nothing was written") }
            offset += written
        }
    }

    /// Reads one response line.
    public func readLine() throws -> Data {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[buffer.startIndex..<newline]
                buffer = Data(buffer[(newline + 1)...])
                return Data(line)
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count: Int
            do {
                count = try SystemCall.run("read") { read(fd, &chunk, chunk.count) }
            } catch {
                throw ClientError(description: "no answer from the daemon: \(error.reason)")
            }
            if count == 0 { throw ClientError(description: "the daemon closed the connection") }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    /// Sends a typed command and decodes its typed result; an error answer throws the daemon's `ApplianceError`.
    public func perform(_ command: Command) throws -> CommandResult {
        try send(raw: try RequestLine(command).encoded())
        let line = try readLine()
        let answer: Result<CommandResult, ApplianceError>
        do {
            answer = try ResponseLine.decode(line, for: command)
        } catch {
            throw ClientError(
                description: "the daemon's answer to \(command.name) does not match this client: \(error)")
        }
        return try answer.get()
    }

    /// Turns this connection into an event stream; read events with `nextEvent()`.
    public func subscribe() throws {
        try send(raw: try RequestLine(command: "events").encoded())
        if let error = try ResponseLine.error(in: try readLine()) { throw error }
    }

    /// The next event on a subscribed connection; an event this client does not know is an error.
    public func nextEvent() throws -> EventRecord {
        try WireFormat.decoder.decode(EventRecord.self, from: try readLine())
    }

    /// The next event on a subscribed connection as sent, whatever its kind.
    public func nextEventLine() throws -> EventLine {
        try WireFormat.decoder.decode(EventLine.self, from: try readLine())
    }

    /// Sends a command given as plain name and arguments and returns the whole response object, as sent:
    /// for tests that check the wire format itself.
    public func call(_ command: String, args: [String: Any] = [:]) throws -> [String: Any] {
        var request: [String: Any] = ["id": 1, "command": command]
        if !args.isEmpty { request["args"] = args }
        var data = try JSONSerialization.data(withJSONObject: request)
        data.append(UInt8(ascii: "\n"))
        try send(raw: data)
        let line = try readLine()
        guard let object = try JSONSerialization.jsonObject(with: line) as? [String: Any] else {
            throw ClientError(description: "the daemon sent something that is not a JSON object")
        }
        return object
    }
}
