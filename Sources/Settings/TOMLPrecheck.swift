/// Checks made before the text reaches toml++ (under TOMLKit), for what toml++ 3 does not check itself.
///
/// toml++ reads some tokens on the assumption that they start as they must (`TOML_ASSERT_ASSUME`): where they do
/// not, a debug build aborts on an assertion and a release build has undefined behaviour (the assumption is given
/// to the optimiser). Fuzzing found three: a table header whose key starts with another character ("[`", in
/// `parse_key`), a date followed by `T` and no time ("1979-05-27T!", in `parse_time`), and a `}` where an array
/// expects a value ("[1,}", in `parse_value`). Each is refused here, with its line, as the syntax error it is.
enum TOMLPrecheck {
    /// The line (from 1) and the reason of the first such token, or nil.
    ///
    /// A header is a `[` at the start of a line (after blanks) outside any value; the scan skips strings (all four
    /// kinds) and comments, and counts the brackets and braces of arrays and inline tables, whose lines may start
    /// with `[` too.
    static func problem(in text: String) -> (line: Int, message: String)? {
        var cursor = Cursor(text)
        var open: [Unicode.Scalar] = []  // the arrays and inline tables the scan is in, innermost last
        var lineStart = true
        while let c = cursor.at(cursor.i) {
            switch c {
            case "\n":
                cursor.line += 1
                lineStart = true
                cursor.i += 1
            case " ", "\t", "\r", "\u{FEFF}":
                cursor.i += 1
            case "#":
                while let d = cursor.at(cursor.i), d != "\n" { cursor.i += 1 }
            case "\"", "'":
                cursor.skipString(c, escapes: c == "\"")
                lineStart = false
            case "[" where open.isEmpty && lineStart:
                var k = cursor.i + 1
                if cursor.at(k) == "[" { k += 1 }
                while cursor.at(k) == " " || cursor.at(k) == "\t" { k += 1 }
                guard let first = cursor.at(k), isKeyStart(first) else {
                    return (cursor.line, "a table header needs a name: [name] or [[name]]")
                }
                cursor.i = k
                lineStart = false
            case "[", "{":
                open.append(c)
                lineStart = false
                cursor.i += 1
            case "}" where open.last == "[":
                return (cursor.line, "an array closed by }")
            case "]", "}":
                _ = open.popLast()  // a header's ] when none is open
                lineStart = false
                cursor.i += 1
            case "0"..."9" where dateWithoutTime(cursor.s, at: cursor.i):
                return (cursor.line, "a date and time needs the time after its T: 1979-05-27T07:32:00")
            default:
                lineStart = false
                cursor.i += 1
            }
        }
        return nil
    }

    /// The scan's place in the text: the scalar it is at and the line (from 1) it is on.
    private struct Cursor {
        let s: [Unicode.Scalar]
        var i = 0
        var line = 1

        init(_ text: String) { s = Array(text.unicodeScalars) }

        func at(_ k: Int) -> Unicode.Scalar? { k < s.count ? s[k] : nil }

        func startsWith(_ quote: Unicode.Scalar, count: Int, at k: Int) -> Bool {
            (0..<count).allSatisfy { at(k + $0) == quote }
        }

        /// Moves past a string that starts at `i`; `escapes`: a backslash escapes the next character (basic strings).
        mutating func skipString(_ quote: Unicode.Scalar, escapes: Bool) {
            let multiLine = startsWith(quote, count: 3, at: i)
            i += multiLine ? 3 : 1
            while let c = at(i) {
                if escapes && c == "\\" {
                    if at(i + 1) == "\n" { line += 1 }
                    i += 2
                    continue
                }
                if c == "\n" {
                    line += 1
                    if !multiLine { return }  // unterminated: toml++ reports it
                }
                if c == quote && (!multiLine || startsWith(quote, count: 3, at: i)) {
                    i += multiLine ? 3 : 1
                    return
                }
                i += 1
            }
        }
    }

    /// `YYYY-MM-DD` then `T` or `t` and no digit: what toml++ takes for a date-time and then misreads.
    private static func dateWithoutTime(_ s: [Unicode.Scalar], at i: Int) -> Bool {
        let pattern = Array("0000-00-00T".unicodeScalars)
        guard i + pattern.count <= s.count else { return false }
        for (k, p) in pattern.enumerated() {
            let c = s[i + k]
            switch p {
            case "0": guard ("0"..."9").contains(c) else { return false }
            case "T": guard c == "T" || c == "t" else { return false }
            default: guard c == p else { return false }
            }
        }
        guard let next = i + pattern.count < s.count ? s[i + pattern.count] : nil else { return false }
        return !("0"..."9").contains(next)
    }

    /// A bare key's characters (TOML 1.0: ASCII letters, digits, `-`, `_`) or a quote.
    private static func isKeyStart(_ c: Unicode.Scalar) -> Bool {
        switch c {
        case "a"..."z", "A"..."Z", "0"..."9", "-", "_", "\"", "'": true
        default: false
        }
    }
}
