import ApplianceBase
import Foundation
import TestSupport
import XCTest

/// One HTTP exchange with `/usr/bin/curl` (the client browsers are compared against in bug reports): status,
/// the last response's headers, and the body as bytes. Redirects are not followed.
struct CurlResponse {
    var status: Int
    /// Header lines of the final response, in order, names as sent.
    var headers: [(name: String, value: String)]
    var body: Data

    /// The first header with this name (case-insensitive).
    func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
    func headers(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }
    /// `error.code` of a JSON error body.
    var errorCode: String? { (json?["error"] as? [String: Any])?["code"] as? String }
}

enum Curl {
    static let path = "/usr/bin/curl"

    /// `headers`: "Name: value" lines. `body`: sent as is (`--data-binary`). `pathAsIs`: no `../` squashing.
    /// `caFile`: the certificate to trust for an https:// URL (the device's own), instead of the system's store.
    static func request(
        _ url: String, method: String = "GET", headers: [String] = [], bearer: String? = nil,
        body: Data? = nil, pathAsIs: Bool = false, caFile: String? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> CurlResponse {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "curl-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let headerFile = scratch.appendingPathComponent("headers").path
        var arguments = ["-s", "-S", "--max-time", "60", "-D", headerFile, "-o", "-"]
        if method == "HEAD" {
            arguments.append("-I")
        } else if method != "GET" || body != nil {
            arguments += ["-X", method]
        }
        if pathAsIs { arguments.append("--path-as-is") }
        if let caFile { arguments += ["--cacert", caFile] }
        for header in headers { arguments += ["-H", header] }
        if let bearer { arguments += ["-H", "Authorization: Bearer \(bearer)"] }
        if let body {
            let bodyFile = scratch.appendingPathComponent("body").path
            try body.write(to: URL(fileURLWithPath: bodyFile))
            arguments += ["--data-binary", "@" + bodyFile, "-H", "Expect:"]
            if !headers.contains(where: { $0.lowercased().hasPrefix("content-type:") }) {
                arguments += ["-H", "Content-Type: application/json"]
            }
        }
        let result = try ProcessOutcome.run(path, arguments + [url], timeout: 90)
        guard result.status == 0 else {
            XCTFail(
                "curl \(arguments.joined(separator: " ")) \(url) failed (\(result.status)): \(result.stderr)",
                file: file, line: line)
            throw DaemonError(message: "curl failed: \(result.stderr)")
        }
        return try parse(
            headers: String(decoding: try Data(contentsOf: URL(fileURLWithPath: headerFile)), as: UTF8.self),
            body: method == "HEAD" ? Data() : result.stdoutData)
    }

    /// The last header block of `-D` output (a `100 Continue` block may come first).
    static func parse(headers text: String, body: Data) throws -> CurlResponse {
        let blocks = text.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n\n").filter {
            !$0.isEmpty
        }
        guard let last = blocks.last?.split(separator: "\n"), let statusLine = last.first,
            let status = statusLine.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else {
            throw DaemonError(message: "no HTTP status line in: \(text)")
        }
        let fields = last.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return CurlResponse(status: status, headers: fields, body: body)
    }

    /// Sends `request` as is over a new TCP connection to `url`'s port and reads until the server closes: for
    /// what curl will not show (the bytes after a HEAD response's headers).
    static func raw(_ url: String, _ request: String, timeout: TimeInterval = 10) throws -> Data {
        guard let port = URL(string: url)?.port else { throw DaemonError(message: "no port in \(url)") }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw DaemonError(message: "socket: \(errno)") }
        defer { close(fd) }
        var wait = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw DaemonError(message: "connect to \(url): \(errno)") }
        // The server may answer and close before it has read everything (a header too large): stop sending then.
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBufferPointer {
                send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count <= 0 { break }
            sent += count
        }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)  // 0 at the server's close, -1 at a reset or the timeout
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
        }
        return received
    }
}
