import AsyncHTTPClient
import Backup
import Foundation
import Mp4
import NIOCore

extension WebDAVClient {
    /// What the server says about the backup folder itself.
    struct FolderAnswer: Sendable {
        var status: Int
        /// The PROPFIND answer lists the resource as a collection (a folder), not a file.
        var isCollection: Bool
        /// Where a redirect points.
        var location: String?
    }

    /// PROPFIND with Depth 0 on the base folder, with the client's credentials: reads, changes nothing. A
    /// transport or TLS failure throws `RemoteError.transport` with the same one-line reason uploads give.
    func probeFolder(timeout: TimeAmount) async throws -> FolderAnswer {
        var request = HTTPClientRequest(url: base + "/")
        request.method = .init(rawValue: "PROPFIND")
        if let authorization { request.headers.add(name: "Authorization", value: authorization) }
        request.headers.add(name: "Depth", value: "0")
        request.headers.add(name: "Content-Type", value: "application/xml")
        request.body = .bytes(
            ByteBuffer(string: #"<?xml version="1.0"?><propfind xmlns="DAV:"><prop><resourcetype/></prop></propfind>"#))
        let response = try await execute(request, timeout: timeout)
        let body = (try? await response.body.collect(upTo: 256 * 1024)).map { String(buffer: $0) } ?? ""
        let collection = body.range(of: #"<([A-Za-z0-9_-]+:)?collection\s*/?>"#, options: .regularExpression) != nil
        return FolderAnswer(
            status: Int(response.status.code), isCollection: collection,
            location: response.headers.first(name: "Location"))
    }
}
