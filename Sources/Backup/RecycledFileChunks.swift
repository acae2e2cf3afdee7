import ApplianceBase
import Dispatch
import Foundation
import NIOCore
import SystemCalls

/// A file read in chunks into a small ring of reused buffers, for a streaming upload.
///
/// Reading each chunk into a fresh buffer (as NIOFileSystem's `readChunks` does) allocates and frees 256 KiB per
/// chunk on different threads, and glibc keeps freed chunks in its arenas (+15–17 MB over a 1 GiB upload, even with
/// `malloc_trim` every 16 MiB). Here chunk *n* is read (`pread`, on a serial queue, off the cooperative pool) into
/// the buffer of chunk *n − ringSize*. By then the HTTP client has written that chunk and dropped its reference, so
/// the storage is simply reused (94 % of reads); if it still holds it, ByteBuffer's copy-on-write gives the read
/// fresh storage — never the bytes being sent.
struct RecycledFileChunks: AsyncSequence, Sendable {
    package typealias Element = ByteBuffer
    package let path: String
    package let chunkLength: Int
    /// The part of the file to read: from `start`, `length` bytes (nil: to the end).
    var start: Int64 = 0
    var length: Int64?
    var ringSize = 8

    package func makeAsyncIterator() -> Iterator {
        Iterator(path: path, chunkLength: chunkLength, ringSize: ringSize, start: start, end: length.map { start + $0 })
    }

    /// One buffer of the ring: taken out by the read, put back once filled.
    package typealias Slot = Locked<ByteBuffer?>

    final class Iterator: AsyncIteratorProtocol {
        private let path: String
        private let chunkLength: Int
        private let slots: [Slot]
        private var index = 0
        private var offset: Int64
        private let end: Int64?
        private var descriptor: Int32 = -1
        private var finished = false
        private static let queue = DispatchQueue(label: "appliance.upload-read")

        package init(path: String, chunkLength: Int, ringSize: Int, start: Int64, end: Int64?) {
            self.path = path
            self.chunkLength = chunkLength
            offset = start
            self.end = end
            slots = (0..<Swift.max(ringSize, 1)).map { _ in Slot(nil) }
        }

        deinit { if descriptor >= 0 { close(descriptor) } }

        package func next() async throws -> ByteBuffer? {
            guard !finished else { return nil }
            if descriptor < 0 {
                do {
                    descriptor = try SystemCall.run("open \(path)") { open(path, O_RDONLY | O_CLOEXEC) }
                } catch {
                    finished = true
                    throw error
                }
            }
            let slot = slots[index]
            index = (index + 1) % slots.count
            let wanted = end.map { Int(Swift.min(Int64(chunkLength), Swift.max($0 - offset, 0))) } ?? chunkLength
            guard wanted > 0 else {
                finished = true
                return nil
            }
            let chunk = try await Self.read(descriptor, at: offset, length: wanted, into: slot)
            guard chunk.readableBytes > 0 else {
                finished = true
                return nil
            }
            offset += Int64(chunk.readableBytes)
            return chunk
        }

        /// Fills the slot's buffer from `offset` (a short read only at the end of the file).
        private static func read(_ descriptor: Int32, at offset: Int64, length: Int, into slot: Slot) async throws
            -> ByteBuffer
        {
            try await withCheckedThrowingContinuation { continuation in
                queue.async {
                    // Taken out of the slot, the buffer is uniquely referenced unless the HTTP client still holds it.
                    var buffer = slot.withLock { $0.take() } ?? ByteBufferAllocator().buffer(capacity: length)
                    buffer.clear()
                    var failure: SystemCallError?
                    buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { raw in
                        var total = 0
                        while total < length {
                            let count: Int
                            do throws(SystemCallError) {
                                count = try SystemCall.run("pread") {
                                    pread(
                                        descriptor, raw.baseAddress! + total, length - total,
                                        off_t(offset) + off_t(total))
                                }
                            } catch {
                                failure = error
                                return 0
                            }
                            if count == 0 { break }
                            total += count
                        }
                        return total
                    }
                    if let failure {
                        continuation.resume(throwing: failure)
                        return
                    }
                    slot.withLock { $0 = buffer }
                    continuation.resume(returning: buffer)
                }
            }
        }
    }
}
