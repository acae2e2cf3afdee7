import ApplianceBase
import Foundation

/// Writes `struct input_event` records as 64-bit Linux lays them out (the inverse of `InputEventDecoder`): what
/// a stand-in device — a FIFO in the tests and benchmarks — carries instead of a kernel input device.
public enum InputEventRecord {
    public static func encoded(seconds: Int64, micros: Int64, type: UInt16, code: UInt16, value: Int32) -> Data {
        var data = Data(capacity: InputEventDecoder.recordSize)
        withUnsafeBytes(of: seconds.littleEndian) { data.append(contentsOf: $0) }
        withUnsafeBytes(of: micros.littleEndian) { data.append(contentsOf: $0) }
        withUnsafeBytes(of: type.littleEndian) { data.append(contentsOf: $0) }
        withUnsafeBytes(of: code.littleEndian) { data.append(contentsOf: $0) }
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
        return data
    }

    /// A record stamped `ms` milliseconds after the clock's zero.
    public static func encoded(ms: Int64, type: UInt16, code: UInt16, value: Int32) -> Data {
        encoded(seconds: ms / 1000, micros: ms % 1000 * 1000, type: type, code: code, value: value)
    }
}
