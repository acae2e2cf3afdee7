/// Bytes as the kernel's GPIO character device writes them, for tests that feed a GPIO button through a FIFO.
package enum GpioLineEventBytes {
    /// One `struct gpio_v2_line_event` as the kernel writes it.
    package static func record(rising: Bool, offset: UInt32, timeNs: UInt64, seqno: UInt32 = 1) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 48)
        bytes.withUnsafeMutableBytes { b in
            b.storeBytes(of: timeNs, toByteOffset: 0, as: UInt64.self)
            b.storeBytes(of: rising ? UInt32(1) : 2, toByteOffset: 8, as: UInt32.self)
            b.storeBytes(of: offset, toByteOffset: 12, as: UInt32.self)
            b.storeBytes(of: seqno, toByteOffset: 16, as: UInt32.self)
            b.storeBytes(of: seqno, toByteOffset: 20, as: UInt32.self)
        }
        return bytes
    }
}
