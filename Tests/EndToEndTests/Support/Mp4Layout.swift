import Foundation

/// The top-level atoms of an MP4 file, read independently of the appliance's own code.
struct Mp4Layout {
    var atoms: [(type: String, size: Int64)] = []
    let fileSize: Int64

    init(_ path: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        fileSize = Int64(data.count)
        var offset = 0
        func be(_ at: Int, _ count: Int) -> UInt64 { data[at..<(at + count)].reduce(0) { $0 << 8 | UInt64($1) } }
        while offset + 8 <= data.count {
            var size = Int64(be(offset, 4))
            let type = String(decoding: data[(offset + 4)..<(offset + 8)], as: UTF8.self)
            if size == 1 { size = Int64(be(offset + 8, 8)) }
            if size == 0 { size = Int64(data.count - offset) }
            guard size >= 8 else { break }
            atoms.append((type, size))
            offset += Int(size)
        }
    }

    /// Bytes of media: the payload of the mdat atoms.
    var mediaBytes: Int64 { atoms.filter { $0.type == "mdat" }.reduce(0) { $0 + $1.size - 8 } }
    /// Bytes on disk over bytes of media.
    var overhead: Double { Double(fileSize) / Double(max(1, mediaBytes)) }
}
