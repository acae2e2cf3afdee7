import Foundation

/// The console's single-key commands.
enum ConsoleKey: Sendable, Equatable {
    case toggleRecording
    case snapshot
    case protect
    case nextCamera
    case quit

    /// The keys in bytes read from a raw-mode terminal, in order. Escape sequences (arrow and function keys, also
    /// split over two reads only in the unlikely case they are) and other keys are skipped.
    static func parse(_ bytes: [UInt8]) -> [ConsoleKey] {
        var keys: [ConsoleKey] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case 0x1B:
                // CSI (ESC [ … final byte 0x40–0x7E) or SS3 (ESC O x): skip the whole sequence.
                guard index < bytes.count else { continue }
                if bytes[index] == UInt8(ascii: "[") {
                    index += 1
                    while index < bytes.count, !(0x40...0x7E).contains(bytes[index]) { index += 1 }
                    index += 1
                } else if bytes[index] == UInt8(ascii: "O") {
                    index += 2
                } else {
                    index += 1
                }
            case UInt8(ascii: " "): keys.append(.toggleRecording)
            case UInt8(ascii: "s"), UInt8(ascii: "S"): keys.append(.snapshot)
            case UInt8(ascii: "p"), UInt8(ascii: "P"): keys.append(.protect)
            case UInt8(ascii: "n"), UInt8(ascii: "N"): keys.append(.nextCamera)
            case UInt8(ascii: "q"), UInt8(ascii: "Q"), 0x03, 0x04: keys.append(.quit)  // 0x03 Ctrl-C, 0x04 Ctrl-D
            default: break
            }
        }
        return keys
    }
}
