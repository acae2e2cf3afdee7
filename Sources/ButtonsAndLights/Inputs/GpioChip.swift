import CLinuxInput
import Foundation
import Glibc
import Settings
import SystemCalls

/// An open GPIO chip (`/dev/gpiochipN`), spoken to through the kernel's character-device uAPI v2 (see
/// docs/DESIGN-NOTES.md, "GPIO"): found by path or by label, its lines by offset or by name. Errors say what was
/// looked for and what there is, as `ButtonOpenError` (missing: not there, retried; failed: there but unusable).
package final class GpioChip {
    package let fd: Int32
    package let path: String
    /// The kernel's name ("gpiochip0") and the driver's label ("pinctrl-bcm2711").
    package let name: String, label: String
    package let lineCount: UInt32

    private init(fd: Int32, path: String, info: gpiochip_info) {
        (self.fd, self.path) = (fd, path)
        (name, label, lineCount) = (Self.string(info.name), Self.string(info.label), info.lines)
    }

    deinit { Glibc.close(fd) }

    /// Opens the chip at `path` and reads its info.
    package static func open(path: String) throws(ButtonOpenError) -> GpioChip {
        let fd: Int32
        do throws(SystemCallError) {
            fd = try SystemCall.run("open \(path)") { Glibc.open(path, O_RDWR | O_CLOEXEC) }
        } catch {
            if [ENOENT, ENODEV, ENXIO].contains(error.code) { throw .missing("no GPIO chip \(path)") }
            throw .failed("cannot open \(path): \(error.reason)\(error.code == EACCES ? " (the gpio group?)" : "")")
        }
        var info = gpiochip_info()
        do throws(SystemCallError) {
            try SystemCall.run("GPIO_GET_CHIPINFO") { appl_gpio_chip_info(fd, &info) }
        } catch {
            Glibc.close(fd)
            throw .failed("\(path) is not a GPIO chip (\(error))")
        }
        return GpioChip(fd: fd, path: path, info: info)
    }

    /// The chip `spec` names: a path (`/dev/gpiochip0`), a name (`gpiochip0`), or a label (`pinctrl-bcm2711`),
    /// the last two looked up among /dev/gpiochip*.
    package static func find(_ spec: String) throws(ButtonOpenError) -> GpioChip {
        if spec.contains("/") { return try open(path: spec) }
        if spec.hasPrefix("gpiochip"), FileManager.default.fileExists(atPath: "/dev/" + spec) {
            return try open(path: "/dev/" + spec)
        }
        var seen: [String] = []
        for path in chipPaths() {
            guard let chip = try? open(path: path) else { continue }
            if chip.label == spec || chip.name == spec { return chip }
            seen.append("\(chip.name) '\(chip.label)'")
        }
        throw .missing(
            "no GPIO chip labelled '\(spec)' ("
                + (seen.isEmpty ? "no GPIO chips on this machine" : "there are: " + seen.joined(separator: ", ")) + ")")
    }

    /// /dev/gpiochip* in numeric order.
    package static func chipPaths(in folder: String = "/dev") -> [String] {
        let names: [String] = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        func number(_ name: String) -> Int { Int(name.dropFirst(8)) ?? Int.max }
        let chips: [String] = names.filter { $0.hasPrefix("gpiochip") }.sorted { (a: String, b: String) -> Bool in
            number(a) != number(b) ? number(a) < number(b) : a < b
        }
        return chips.map { folder + "/" + $0 }
    }

    /// What the kernel says about one line.
    struct LineInfo {
        package var name: String, consumer: String
        package var used: Bool
    }

    func lineInfo(_ offset: UInt32) -> LineInfo? {
        var info = gpio_v2_line_info()
        guard appl_gpio_line_info(fd, offset, &info) == 0 else { return nil }
        return LineInfo(
            name: Self.string(info.name), consumer: Self.string(info.consumer),
            used: info.flags & GpioFlags.used != 0)
    }

    /// The offset of the line `spec` names: a number below the chip's line count, or a line's name.
    package func offset(ofLine spec: String) throws(ButtonOpenError) -> UInt32 {
        if let offset = UInt32(spec) {
            guard offset < lineCount else {
                throw .missing("\(name) '\(label)' has no line \(offset) (it has \(lineCount))")
            }
            return offset
        }
        for offset in 0..<lineCount where lineInfo(offset)?.name == spec { return offset }
        throw .missing("\(name) '\(label)' has no line named '\(spec)'")
    }

    /// Why a line request failed, as an open error naming the line (and who holds it when it is busy).
    func requestError(offset: UInt32, _ error: SystemCallError) -> ButtonOpenError {
        let line = "line \(offset) of \(name) '\(label)'"
        switch error.code {
        case EBUSY:
            let holder = lineInfo(offset)?.consumer ?? ""
            return .failed("\(line) is busy" + (holder.isEmpty ? "" : ": used by '\(holder)'"))
        case EACCES, EPERM: return .failed("\(line): permission denied")
        case ENOTTY: return .failed("\(path) does not offer the GPIO uAPI v2 (Linux 5.10 or later is needed)")
        default: return .failed("\(line): cannot request it: \(error.reason)")
        }
    }

    /// A NUL-terminated char array the kernel filled (a C `char[32]`, imported as a tuple).
    package static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}

/// The v2 line flags as plain numbers (the C enum imports as a type of its own).
enum GpioFlags {
    package static let used = UInt64(GPIO_V2_LINE_FLAG_USED.rawValue)
    package static let activeLow = UInt64(GPIO_V2_LINE_FLAG_ACTIVE_LOW.rawValue)
    package static let input = UInt64(GPIO_V2_LINE_FLAG_INPUT.rawValue)
    package static let output = UInt64(GPIO_V2_LINE_FLAG_OUTPUT.rawValue)
    static let edgeRising = UInt64(GPIO_V2_LINE_FLAG_EDGE_RISING.rawValue)
    static let edgeFalling = UInt64(GPIO_V2_LINE_FLAG_EDGE_FALLING.rawValue)
    static let biasPullUp = UInt64(GPIO_V2_LINE_FLAG_BIAS_PULL_UP.rawValue)
    static let biasPullDown = UInt64(GPIO_V2_LINE_FLAG_BIAS_PULL_DOWN.rawValue)
    static let biasDisabled = UInt64(GPIO_V2_LINE_FLAG_BIAS_DISABLED.rawValue)

    package static func bias(_ bias: ApplianceConfig.Input.Bias) -> UInt64 {
        switch bias {
        case .asIs: 0
        case .pullUp: biasPullUp
        case .pullDown: biasPullDown
        case .disabled: biasDisabled
        }
    }
}
