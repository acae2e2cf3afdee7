import ApplianceBase

/// Decodes `struct input_event` records as 64-bit Linux lays them out (24 bytes, little endian on the targets):
/// `struct timeval` (tv_sec Int64, tv_usec Int64), type UInt16, code UInt16, value Int32.
///
/// Only EV_KEY records of the configured key become edges; value 1 is a press, 0 a release, and 2 (the
/// keyboard's auto-repeat) is dropped here, so repeats never reach the gesture recognizer. It also tracks which
/// keys are held, because a grab must wait until none is (see `EvdevButton`).
package struct InputEventDecoder: Sendable {
    package static let recordSize = 24
    package static let evKey: UInt16 = 1

    /// One decoded record.
    package struct Event: Sendable, Equatable {
        package var time: UInt64
        package var type: UInt16
        package var code: UInt16
        package var value: Int32

        package init(time: UInt64, type: UInt16, code: UInt16, value: Int32) {
            self.time = time
            self.type = type
            self.code = code
            self.value = value
        }
    }

    package let keyCode: UInt16
    /// Keys (any code) down now, as far as the records and the initial EVIOCGKEY tell.
    package private(set) var held: Set<UInt16> = []

    package init(keyCode: UInt16) { self.keyCode = keyCode }

    /// The keys held when the device was opened (EVIOCGKEY's bitmap: bit n of byte n / 8 is key n).
    package mutating func setHeld(bitmap: [UInt8]) {
        held = []
        for (byte, bits) in bitmap.enumerated() where bits != 0 {
            for bit in 0..<8 where bits & (1 << bit) != 0 { held.insert(UInt16(byte * 8 + bit)) }
        }
    }

    /// The record's fields; its time in nanoseconds (out-of-range fields, which a FIFO could carry, are clamped).
    package static func event(_ record: UnsafeRawBufferPointer) -> Event? {
        guard record.count >= recordSize else { return nil }
        let seconds = Int64(littleEndian: record.loadUnaligned(fromByteOffset: 0, as: Int64.self))
        let micros = Int64(littleEndian: record.loadUnaligned(fromByteOffset: 8, as: Int64.self))
        // Saturating: a FIFO can carry any bytes.
        let clamped = min(max(seconds, 0), Int64(UInt64.max / 1_000_000_000 - 1))
        let fraction = min(max(micros, 0), 999_999)
        let time = UInt64(clamped) * 1_000_000_000 + UInt64(fraction) * 1000
        return Event(
            time: time,
            type: UInt16(littleEndian: record.loadUnaligned(fromByteOffset: 16, as: UInt16.self)),
            code: UInt16(littleEndian: record.loadUnaligned(fromByteOffset: 18, as: UInt16.self)),
            value: Int32(littleEndian: record.loadUnaligned(fromByteOffset: 20, as: Int32.self)))
    }

    /// The configured key's press or release in this record; nil for anything else (other keys, SYN, repeats).
    package mutating func edge(_ record: UnsafeRawBufferPointer) -> ButtonEdge? {
        guard let event = Self.event(record), event.type == Self.evKey else { return nil }
        switch event.value {
        case 1: held.insert(event.code)
        case 0: held.remove(event.code)
        default: return nil  // 2: auto-repeat
        }
        guard event.code == keyCode else { return nil }
        return ButtonEdge(pressed: event.value == 1, time: event.time)
    }
}
