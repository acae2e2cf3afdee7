import Foundation
import Glibc
import XCTest

/// An RTSP client that sends one request at a time and reads what comes back, for tests that need the server to see
/// requests from several clients in an exact order (ffmpeg and ffprobe choose their own). Plain RFC 2326 over a
/// TCP socket: requests with CSeq and Session, replies parsed for status, headers and body; once a TCP client has
/// played, the `$`-framed RTP and RTCP on its connection are counted by channel.
final class RTSPTestClient {
    struct Reply {
        let status: Int
        let headers: [String: String]
        let body: String
    }

    private let fd: Int32
    private var sequence = 0
    private var pending = [UInt8]()
    private(set) var session: String?
    /// Interleaved packets read so far, by channel (0 video RTP, 2 audio RTP when set up as below).
    private(set) var packets: [UInt8: Int] = [:]

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RTSPTestError("socket: errno \(errno)") }
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = Self.loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            throw RTSPTestError("connect to port \(port): errno \(errno)")
        }
    }

    deinit { close(fd) }

    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    /// Sends a request and waits (up to `timeout`) for its reply; interleaved packets read meanwhile are counted.
    @discardableResult
    func request(_ method: String, _ url: String, headers: [String: String] = [:], timeout: TimeInterval = 10) throws
        -> Reply
    {
        try send(method, url, headers: headers)
        return try reply(to: method, timeout: timeout)
    }

    /// Sends a request without waiting for its reply (`reply(to:)` reads it), so that a request on another
    /// connection can reach the server right behind it.
    func send(_ method: String, _ url: String, headers: [String: String] = [:]) throws {
        sequence += 1
        var text = "\(method) \(url) RTSP/1.0\r\nCSeq: \(sequence)\r\nUser-Agent: appliance-tests\r\n"
        if let session { text += "Session: \(session)\r\n" }
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        let bytes = Array(text.utf8)
        guard bytes.withUnsafeBytes({ Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count
        else {
            throw RTSPTestError("\(method): send failed, errno \(errno)")
        }
    }

    /// Waits (up to `timeout`) for the next reply; interleaved packets read meanwhile are counted.
    func reply(to method: String, timeout: TimeInterval = 10) throws -> Reply {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let reply = takeReply() {
                if let value = reply.headers["session"] { session = String(value.split(separator: ";")[0]) }
                return reply
            }
            try receive()
        }
        throw RTSPTestError("\(method): no reply in \(timeout) s")
    }

    func forgetPackets() { packets = [:] }

    /// Reads interleaved packets for `duration` seconds.
    func read(for duration: TimeInterval) throws {
        let deadline = Date().addingTimeInterval(duration)
        while Date() < deadline {
            while takeFrame() {}
            try receive()
        }
        while takeFrame() {}
    }

    private func receive() throws {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            pending += chunk[0..<count]
        } else if count == 0 {
            throw RTSPTestError("the server closed the connection")
        } else if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
            throw RTSPTestError("recv: errno \(errno)")
        }
    }

    /// Takes one `$` frame off the front of what was read, if a whole one is there.
    private func takeFrame() -> Bool {
        guard pending.count >= 4, pending[0] == UInt8(ascii: "$") else { return false }
        let length = Int(pending[2]) << 8 | Int(pending[3])
        guard pending.count >= 4 + length else { return false }
        packets[pending[1], default: 0] += 1
        pending.removeFirst(4 + length)
        return true
    }

    /// Takes a whole reply off the front of what was read (frames before it are counted), if one is there.
    private func takeReply() -> Reply? {
        while takeFrame() {}
        guard !pending.isEmpty, pending[0] != UInt8(ascii: "$") else { return nil }
        let separator = Array("\r\n\r\n".utf8)
        guard
            let end = (0...max(0, pending.count - separator.count)).first(where: {
                Array(pending[$0..<min(pending.count, $0 + 4)]) == separator
            })
        else { return nil }
        let head = String(decoding: pending[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        guard pending.count >= end + 4 + length else { return nil }
        let body = String(decoding: pending[(end + 4)..<(end + 4 + length)], as: UTF8.self)
        pending.removeFirst(end + 4 + length)
        let status = Int(head[0].split(separator: " ").dropFirst().first ?? "") ?? 0
        return Reply(status: status, headers: headers, body: body)
    }
}

/// A UDP socket on 127.0.0.1 that counts the datagrams sent to it (an RTSP client's RTP or RTCP port).
final class UDPCounter {
    private let fd: Int32
    let port: Int

    init() throws {
        let socketFD = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard socketFD >= 0 else { throw RTSPTestError("socket: errno \(errno)") }
        var address = RTSPTestClient.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socketFD, $0, length) == 0 && getsockname(socketFD, $0, &length) == 0
            }
        }
        guard bound else {
            close(socketFD)
            throw RTSPTestError("bind: errno \(errno)")
        }
        fd = socketFD
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(fd) }

    /// The datagrams waiting to be read, read.
    func drain() -> Int {
        var datagrams = 0
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while buffer.withUnsafeMutableBytes({ recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }) >= 0 {
            datagrams += 1
        }
        return datagrams
    }
}

struct RTSPTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
