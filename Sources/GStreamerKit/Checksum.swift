import CGStreamer

/// SHA-1 and SHA-256 from GLib's GChecksum (linked already through GStreamer), so that the few digests the appliance
/// needs (ONVIF's UsernameToken, its endpoint UUID, the encoder cache's key) do not pull a second BoringSSL into the
/// build.
public struct Checksum: ~Copyable {
    public enum Kind: Sendable {
        case sha1, sha256

        var glib: GChecksumType { self == .sha1 ? G_CHECKSUM_SHA1 : G_CHECKSUM_SHA256 }
        var length: Int { self == .sha1 ? 20 : 32 }
    }

    private let pointer: OpaquePointer
    private let kind: Kind

    public init(_ kind: Kind) {
        self.kind = kind
        pointer = g_checksum_new(kind.glib)
    }

    deinit { g_checksum_free(pointer) }

    public mutating func update<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        let array = Array(bytes)
        array.withUnsafeBufferPointer { buffer in
            if let base = buffer.baseAddress { g_checksum_update(pointer, base, buffer.count) }
        }
    }

    /// The digest's bytes; the checksum cannot be updated after this.
    public consuming func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: kind.length)
        var length = gsize(kind.length)
        g_checksum_get_digest(pointer, &digest, &length)
        return Array(digest.prefix(Int(length)))
    }

    /// The digest of `bytes` in one call.
    public static func hash<Bytes: Sequence<UInt8>>(_ kind: Kind, _ bytes: Bytes) -> [UInt8] {
        var checksum = Checksum(kind)
        checksum.update(bytes)
        return checksum.finalize()
    }
}
