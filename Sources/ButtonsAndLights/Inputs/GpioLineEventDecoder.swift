import CLinuxInput

/// Decodes the kernel's `struct gpio_v2_line_event` records (48 bytes: timestamp_ns u64, id u32 — 1 rising,
/// 2 falling —, offset u32, seqno u32, line_seqno u32, padding u32[6]) into a button's edges. The line was
/// requested with the kernel applying active_low, so rising (inactive to active) is a press whatever the wiring.
/// Records about another offset are not this button's.
package struct GpioLineEventDecoder: Sendable {
    package static let recordSize = 48
    package static let risingEdge = UInt32(GPIO_V2_LINE_EVENT_RISING_EDGE.rawValue)
    package static let fallingEdge = UInt32(GPIO_V2_LINE_EVENT_FALLING_EDGE.rawValue)

    package let offset: UInt32

    package init(offset: UInt32) {
        self.offset = offset
    }

    package func edge(from record: UnsafeRawBufferPointer) -> ButtonEdge? {
        guard record.count >= Self.recordSize else { return nil }
        let time = record.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
        let id = record.loadUnaligned(fromByteOffset: 8, as: UInt32.self)
        guard record.loadUnaligned(fromByteOffset: 12, as: UInt32.self) == offset else { return nil }
        switch id {
        case Self.risingEdge: return ButtonEdge(pressed: true, time: time)
        case Self.fallingEdge: return ButtonEdge(pressed: false, time: time)
        default: return nil
        }
    }
}
