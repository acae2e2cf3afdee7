import Foundation

/// What `metrics` answers: metric families in Prometheus's data model. It is typed on the wire (JSON) like every
/// other result; `prometheusText` renders the text exposition format that `ctl metrics` prints and the web
/// dashboard serves at `/metrics`, so both show the same numbers.
public struct MetricsReport: Codable, Sendable, Equatable {
    public var families: [MetricFamily]

    public init(families: [MetricFamily]) { self.families = families }

    /// The family named `name`.
    public subscript(name: String) -> MetricFamily? { families.first { $0.name == name } }

    /// Prometheus text format 0.0.4: `# HELP`, `# TYPE`, then one line per sample, labels sorted by name.
    public var prometheusText: String {
        var out = ""
        for family in families {
            out += "# HELP \(family.name) \(Self.escapeHelp(family.help))\n"
            out += "# TYPE \(family.name) \(family.type.rawValue)\n"
            for sample in family.samples {
                out += family.name + (sample.suffix ?? "")
                if !sample.labels.isEmpty {
                    let labels = sample.labels.sorted { $0.key < $1.key }.map {
                        "\($0.key)=\"\(Self.escapeLabel($0.value))\""
                    }
                    out += "{" + labels.joined(separator: ",") + "}"
                }
                out += " " + Self.format(sample.value) + "\n"
            }
        }
        return out
    }

    /// The content type `/metrics` is served with.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// Integers without a fraction (frame counts stay exact and readable), others in Swift's shortest form.
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    static func escapeHelp(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }

    static func escapeLabel(_ text: String) -> String {
        escapeHelp(text).replacingOccurrences(of: "\"", with: "\\\"")
    }
}

/// One metric: its name, help line, type and samples.
public struct MetricFamily: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case counter, gauge, histogram
    }

    public var name: String
    public var help: String
    public var type: Kind
    public var samples: [MetricSample]

    public init(_ name: String, _ type: Kind, _ help: String, _ samples: [MetricSample]) {
        (self.name, self.type, self.help, self.samples) = (name, type, help, samples)
    }

    /// A family with one unlabelled sample.
    public init(_ name: String, _ type: Kind, _ help: String, value: Double) {
        self.init(name, type, help, [MetricSample(value)])
    }

    /// The value of the sample with exactly these labels (a histogram's: of its `_count`).
    public func value(_ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.labels == labels && ($0.suffix == nil || $0.suffix == "_count") }?.value
    }

    /// A histogram: `_bucket` samples by upper bound (`le`, cumulative, `+Inf` last), `_sum` and `_count`.
    public static func histogram(
        _ name: String, _ help: String, bounds: [Double], counts: [UInt64], count: UInt64, sum: Double
    ) -> MetricFamily {
        var samples = zip(bounds, counts).map {
            MetricSample(Double($1), ["le": MetricsReport.format($0)], suffix: "_bucket")
        }
        samples.append(MetricSample(Double(count), ["le": "+Inf"], suffix: "_bucket"))
        samples.append(MetricSample(sum, suffix: "_sum"))
        samples.append(MetricSample(Double(count), suffix: "_count"))
        return MetricFamily(name, .histogram, help, samples)
    }
}

public struct MetricSample: Codable, Sendable, Equatable {
    public var labels: [String: String]
    public var value: Double
    /// A histogram's part (`_bucket`, `_sum`, `_count`), added to the family's name; nil for others.
    public var suffix: String?

    public init(_ value: Double, _ labels: [String: String] = [:], suffix: String? = nil) {
        (self.value, self.labels, self.suffix) = (value, labels, suffix)
    }
}
