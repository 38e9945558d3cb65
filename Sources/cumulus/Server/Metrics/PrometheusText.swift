/// A document in Prometheus' text exposition format, version 0.0.4: each metric family's
/// `# HELP` and `# TYPE` lines, then its samples, label values escaped.
struct PrometheusText {
    /// The content type of the format.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The kinds of metric families.
    enum Kind: String {
        case counter, gauge, histogram
    }

    private(set) var bytes: [UInt8] = []

    /// Starts the family `name`.
    mutating func family(_ name: String, _ kind: Kind, help: String) {
        append("# HELP \(name) \(Self.escapedHelp(help))\n# TYPE \(name) \(kind.rawValue)\n")
    }

    /// Adds a sample of `name` with `labels` (in order).
    mutating func sample(_ name: String, _ labels: KeyValuePairs<String, String>, _ value: Double) {
        sample(name, labels.map { (key: $0.key, value: $0.value) }, value)
    }

    /// Adds a sample of `name` with `labels` (in order).
    mutating func sample(_ name: String, _ labels: [(key: String, value: String)], _ value: Double) {
        var line = name
        if !labels.isEmpty {
            line += "{" + labels.map { "\($0.key)=\"\(Self.escapedLabel($0.value))\"" }.joined(separator: ",") + "}"
        }
        append(line + " " + Self.format(value) + "\n")
    }

    /// A family of one sample: `name`'s HELP and TYPE and its value.
    mutating func single(_ name: String, _ kind: Kind, help: String, _ value: Double) {
        family(name, kind, help: help)
        sample(name, [], value)
    }

    private mutating func append(_ text: String) { bytes += text.utf8 }

    /// A value as the format writes it: integers without a fraction, `+Inf` for infinity.
    static func format(_ value: Double) -> String {
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value.isNaN { return "NaN" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// A label value with backslash, double quote and line feed escaped.
    static func escapedLabel(_ value: String) -> String {
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// A help text with backslash and line feed escaped.
    static func escapedHelp(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }
}
