import Engine
import Foundation
import GStreamerKit

/// The encoders `[video] encoder = "auto"` chooses among, as fragments (`encoders/<name>.gst`): in the configured
/// order (hardware first), except that an encoder whose rank was raised above GStreamer's PRIMARY range
/// (`GST_PLUGIN_FEATURE_RANK=x264enc:MAX`) is tried before the others. A candidate is present when every element its
/// fragment names is installed.
package struct EncoderCandidate: Sendable, Equatable {
    package var name: String
    /// The fragment's text, placeholders unfilled (part of the cache key: an edited fragment is tried again).
    package var fragment: String
    /// Every element factory the fragment names, and what the registry says of each (nil: not installed).
    package var factories: [String: ElementFactoryInfo?]
    /// The encoder element: the first factory of class Encoder, else the first one named.
    package var element: String

    package var isPresent: Bool { !factories.isEmpty && factories.values.allSatisfy { $0 != nil } }
    /// An encoder the CPU runs (no "Hardware" in its element's class): what a start falls back to when no trial
    /// answers.
    package var isSoftware: Bool { (factories[element] ?? nil).map { !$0.klass.contains("Hardware") } ?? false }
    /// Above PRIMARY + 255: a user asked for this one first.
    package var isPreferred: Bool { (factories[element] ?? nil).map { $0.rank > 511 } ?? false }

    package init(name: String, fragment: String) {
        self.name = name
        self.fragment = fragment
        let names = Self.factoryNames(in: fragment)
        var factories: [String: ElementFactoryInfo?] = [:]
        for factory in names { factories[factory] = ElementFactoryInfo.find(factory) }
        self.factories = factories
        element = names.first { (factories[$0] ?? nil)?.klass.contains("Encoder") == true } ?? names.first ?? name
    }

    /// The element factories of a gst-launch description: the first word of each `!`-separated part that is not
    /// caps (`video/x-h264,…`) or a property.
    package static func factoryNames(in fragment: String) -> [String] {
        let lines = fragment.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#") }
        return lines.joined(separator: " ").split(separator: "!").compactMap { part in
            guard let word = part.split(whereSeparator: \.isWhitespace).first.map(String.init),
                !word.contains("/"), !word.contains("="), !word.contains("("), !word.contains(".")
            else { return nil }
            return word
        }
    }

    /// The candidate `name` as `library` has it (no fragment: not present).
    package static func read(_ name: String, library: FragmentLibrary) -> EncoderCandidate {
        EncoderCandidate(
            name: name,
            fragment: (try? String(contentsOfFile: "\(library.directory)/encoders/\(name).gst", encoding: .utf8)) ?? "")
    }

    /// The candidates `names`, read from `library`, in the order they are tried.
    package static func ordered(_ names: [String], library: FragmentLibrary) -> [EncoderCandidate] {
        let candidates = names.map { read($0, library: library) }
        return candidates.filter(\.isPreferred) + candidates.filter { !$0.isPreferred }
    }
}
