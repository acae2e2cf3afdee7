import ApplianceProtocol
import Foundation
import FrontEndInterface
import Settings

/// The effective configuration, read-only, as JSON for the settings page: every setting by its config key
/// (snake_case), secrets never shown. Files that hold secrets are named, never read; a password in the backup
/// URL is replaced by `***`.
enum ConfigView {
    static func json(_ config: ApplianceConfig) -> JSONValue { value(of: config, key: "") }

    /// The same, indented, for the settings page.
    static func prettyText(_ config: ApplianceConfig) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(json(config))).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    private static func value(of subject: Any, key: String) -> JSONValue {
        let lowered = key.lowercased()
        if lowered.contains("password") && !lowered.contains("file") || lowered.contains("secret") {
            return .string("***")
        }
        switch subject {
        case let text as String: return .string(lowered == "url" ? redacted(text) : text)
        case let flag as Bool: return .bool(flag)
        case let number as Int: return .int(number)
        case let number as UInt: return .int(Int(number))
        case let number as Int64: return .int(Int(number))
        case let number as Double: return .double(number)
        default: break
        }
        let mirror = Mirror(reflecting: subject)
        switch mirror.displayStyle {
        case .optional:
            return mirror.children.first.map { value(of: $0.value, key: key) } ?? .null
        case .collection, .set:
            return .array(mirror.children.map { value(of: $0.value, key: key) })
        case .dictionary:
            var object: [String: JSONValue] = [:]
            for child in mirror.children {
                let pair = Mirror(reflecting: child.value).children.map(\.value)
                if pair.count == 2 { object["\(pair[0])"] = value(of: pair[1], key: "\(pair[0])") }
            }
            return .object(object)
        case .enum:
            if let raw = (subject as? any RawRepresentable)?.rawValue { return value(of: raw, key: key) }
            return .string("\(subject)")
        case .struct, .class:
            var object: [String: JSONValue] = [:]
            for child in mirror.children {
                guard let label = child.label else { continue }
                let name = snakeCase(label)
                object[name] = value(of: child.value, key: name)
            }
            return .object(object)
        default:
            return .string("\(subject)")
        }
    }

    static func snakeCase(_ name: String) -> String {
        var out = ""
        for character in name {
            if character.isUppercase { out += "_" + character.lowercased() } else { out.append(character) }
        }
        return out
    }

    /// `https://me:pass@cloud/dav` → `https://me:***@cloud/dav`.
    static func redacted(_ url: String) -> String {
        guard var parts = URLComponents(string: url), parts.password != nil else { return url }
        parts.password = "***"
        return parts.string ?? "***"
    }
}
