import Foundation

/// Finds the line of a key in TOML text, since the parser reports positions only for syntax errors.
/// Understands `[table]` and `[[array]]` headers well enough for error messages.
struct SourceLines {
    private let lines: [Substring]

    package init(_ text: String) { lines = text.split(separator: "\n", omittingEmptySubsequences: false) }

    /// Line (1-based) of `key` inside `table` (nil = top level); `index` picks the n-th `[[table]]`.
    package func line(of key: String, in table: String?, index: Int? = nil) -> Int? {
        var current: String? = nil
        var arrayCount: [String: Int] = [:]
        var currentIndex: Int? = nil
        for (number, raw) in lines.enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[[") {
                let name = String(line.dropFirst(2).prefix { $0 != "]" }).trimmingCharacters(in: .whitespaces)
                current = name
                currentIndex = arrayCount[name, default: 0]
                arrayCount[name] = currentIndex! + 1
                if key.isEmpty, name == table, currentIndex == index { return number + 1 }
                continue
            }
            if line.hasPrefix("[") {
                let name = String(line.dropFirst().prefix { $0 != "]" }).trimmingCharacters(in: .whitespaces)
                current = name
                currentIndex = nil
                if key.isEmpty, name == table { return number + 1 }
                continue
            }
            guard current == table, index == nil || currentIndex == index, !key.isEmpty else { continue }
            let name = line.prefix { $0 != "=" }.trimmingCharacters(in: .whitespaces).trimmingCharacters(
                in: CharacterSet(charactersIn: "\"'"))
            if name == key, line.contains("=") { return number + 1 }
        }
        return nil
    }
}
