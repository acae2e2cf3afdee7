import Foundation
import SystemCalls

/// The controlling terminal in full-screen mode: raw input (no echo, no line buffering, Ctrl-C is a key, not a
/// signal), the alternate screen and a hidden cursor, all through termios and ANSI sequences (no curses).
/// `restore()` puts everything back as it was; it is safe to call more than once.
final class Terminal {
    private let input: Int32
    private let output: Int32
    private var saved: termios?

    /// Fails (with a line for the user) when standard input or output is not a terminal.
    init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) throws {
        guard isatty(input) == 1, isatty(output) == 1 else {
            throw ConsoleError("the console needs a terminal (run it in a terminal or over `ssh -t`)")
        }
        (self.input, self.output) = (input, output)
    }

    /// Raw mode, alternate screen, cursor hidden.
    func enter() throws {
        var original = termios()
        do {
            try SystemCall.run("tcgetattr") { tcgetattr(input, &original) }
        } catch {
            throw ConsoleError("cannot read the terminal's settings: \(error.reason)")
        }
        var raw = original
        // As cfmakeraw, but output processing stays on, so "\n" still returns the carriage.
        raw.c_iflag &= ~tcflag_t(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON)
        raw.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | ISIG | IEXTEN)
        raw.c_cflag &= ~tcflag_t(CSIZE | PARENB)
        raw.c_cflag |= tcflag_t(CS8)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        do {
            try SystemCall.run("tcsetattr") { tcsetattr(input, TCSAFLUSH, &raw) }
        } catch {
            throw ConsoleError("cannot set the terminal to raw mode: \(error.reason)")
        }
        saved = original
        write(ANSI.alternateScreenOn + ANSI.hideCursor + ANSI.clearScreen)
    }

    /// Leaves the alternate screen, shows the cursor and restores the terminal's settings.
    func restore() {
        guard var original = saved else { return }
        saved = nil
        write(ANSI.reset + ANSI.showCursor + ANSI.alternateScreenOff)
        tcsetattr(input, TCSAFLUSH, &original)
    }

    /// Columns and rows (80×24 if the terminal does not say).
    var size: (width: Int, height: Int) {
        var ws = winsize()
        guard ioctl(output, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0, ws.ws_row > 0 else { return (80, 24) }
        return (Int(ws.ws_col), Int(ws.ws_row))
    }

    /// Draws the lines from the top left, each cleared to its end, and clears below them; `full` clears the whole
    /// screen first (after a resize, where old text may sit outside the new lines).
    func draw(_ lines: [ScreenLine], full: Bool) {
        var frame = full ? ANSI.clearScreen : ""
        frame += ANSI.home
        for (row, line) in lines.enumerated() {
            frame += ANSI.moveTo(row: row + 1)
            frame += line.highlighted ? ANSI.reverse + line.text + ANSI.reset : line.text
            frame += ANSI.clearToEndOfLine
        }
        frame += ANSI.clearBelow
        write(frame)
    }

    private func write(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            // A terminal that went away: the frame is dropped (the session notices the closed input).
            guard
                let written = try? SystemCall.run(
                    "write", { bytes.withUnsafeBytes { Glibc.write(output, $0.baseAddress, $0.count) } }),
                written > 0
            else { return }
            bytes = bytes.dropFirst(written)
        }
    }
}

/// The few escape sequences the console uses (ECMA-48 / xterm).
enum ANSI {
    static let alternateScreenOn = "\u{1B}[?1049h"
    static let alternateScreenOff = "\u{1B}[?1049l"
    static let hideCursor = "\u{1B}[?25l"
    static let showCursor = "\u{1B}[?25h"
    static let clearScreen = "\u{1B}[2J"
    static let home = "\u{1B}[H"
    static let clearToEndOfLine = "\u{1B}[K"
    static let clearBelow = "\u{1B}[J"
    static let reverse = "\u{1B}[7m"
    static let reset = "\u{1B}[0m"
    static func moveTo(row: Int) -> String { "\u{1B}[\(row);1H" }
}

/// A failure the console reports as one line.
struct ConsoleError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
