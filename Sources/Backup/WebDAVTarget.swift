import Foundation

/// Backup to a WebDAV folder: the day's folders made with MKCOL, each file sent to a temporary name and moved into
/// place, the media's size checked on the server.
struct WebDAVTarget: BackupTarget {
    let client: WebDAVClient

    func store(
        file: String, size: Int64, at path: String, resume: UploadResume, rateKbps: Int,
        progress: @escaping @Sendable (Int64) -> Void
    ) async throws {
        try await client.makeCollections((path as NSString).deletingLastPathComponent)
        let temporary = RemoteLayout.temporary(path)
        try await client.put(file: file, to: temporary, rateKbps: rateKbps, progress: progress)
        try await client.move(temporary, to: path)
        let remoteSize = try await client.size(of: path)
        guard remoteSize == size else {
            throw RemoteError.verification(
                "\(path) is \(remoteSize.map(String.init) ?? "missing") bytes on the server, \(size) here")
        }
    }

    func store(data: Data, at path: String) async throws {
        try await client.put(data: data, to: RemoteLayout.temporary(path))
        try await client.move(RemoteLayout.temporary(path), to: path)
    }

    func remove(_ layout: RemoteLayout) async throws {
        for path in [layout.media, layout.thumbnail, layout.sidecar, RemoteLayout.temporary(layout.media)] {
            try await client.delete(path)
        }
    }

    /// WebDAV makes missing folders itself (MKCOL) and never pauses on one.
    func exists() async -> Bool { false }
}
