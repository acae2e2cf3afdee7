import Crypto
import Dispatch
import Foundation
import SystemCalls

/// The SHA-256 (for `x-amz-content-sha256`, which S3 checks against what arrives) and the MD5 (what S3 answers as
/// the ETag of a plain object or a part) of a range of a file, read once in 1 MiB pieces off the cooperative pool.
struct FileDigest: Sendable, Equatable {
    var sha256: String
    var md5: String

    private static let queue = DispatchQueue(label: "appliance.upload-digest")

    static func of(_ file: String, start: Int64 = 0, length: Int64) async throws -> FileDigest {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try compute(file, start: start, length: length) })
            }
        }
    }

    private static func compute(_ file: String, start: Int64, length: Int64) throws -> FileDigest {
        let descriptor = try SystemCall.run("open \(file)") { open(file, O_RDONLY | O_CLOEXEC) }
        defer { close(descriptor) }
        var sha = SHA256()
        var md5 = Insecure.MD5()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var done: Int64 = 0
        while done < length {
            let wanted = Int(min(Int64(buffer.count), length - done))
            let count = try buffer.withUnsafeMutableBytes { raw in
                try SystemCall.run("pread \(file)") { pread(descriptor, raw.baseAddress!, wanted, off_t(start + done)) }
            }
            guard count > 0 else {
                throw RemoteError.verification("\(file) ended at \(start + done) bytes, \(start + length) expected")
            }
            buffer.withUnsafeBytes { raw in
                let piece = UnsafeRawBufferPointer(rebasing: raw[0..<count])
                sha.update(bufferPointer: piece)
                md5.update(bufferPointer: piece)
            }
            done += Int64(count)
        }
        return FileDigest(sha256: hex(sha.finalize()), md5: hex(md5.finalize()))
    }

    static func hex<D: Sequence>(_ bytes: D) -> String where D.Element == UInt8 {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// The digests of data in memory (a thumbnail, a sidecar).
    static func of(_ data: Data) -> FileDigest {
        FileDigest(sha256: hex(SHA256.hash(data: data)), md5: hex(Insecure.MD5.hash(data: data)))
    }

    /// What S3 answers as a multipart object's ETag: the MD5 of the parts' MD5s (binary, in order), "-", their count.
    static func multipartETag(partMD5s: [String]) -> String {
        var joined = Data()
        for hex in partMD5s { joined.append(contentsOf: bytes(hex)) }
        return "\(FileDigest.hex(Insecure.MD5.hash(data: joined)))-\(partMD5s.count)"
    }

    private static func bytes(_ hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var index = hex.startIndex
        while let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex), index != hex.endIndex {
            result.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return result
    }
}
