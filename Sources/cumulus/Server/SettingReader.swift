/// Reads one setting from a flag value or an environment variable, with parsing of sizes,
/// durations and booleans.
struct SettingReader {
    let environment: [String: String]

    func string(_ flag: String?, _ variable: String) -> String? {
        if let flag { return flag }
        if let value = environment[variable], !value.isEmpty { return value }
        return nil
    }

    func integer(_ flag: Int?, _ variable: String, in range: ClosedRange<Int>) throws -> Int? {
        if let flag {
            guard range.contains(flag) else { throw invalid(flagName(variable), "\(flag)", "an integer in \(range)") }
            return flag
        }
        guard let text = string(nil, variable) else { return nil }
        guard let value = Int(text), range.contains(value) else { throw invalid(variable, text, "an integer in \(range)") }
        return value
    }

    func size(_ flag: String?, _ variable: String) throws -> Int? {
        guard let text = string(flag, variable) else { return nil }
        guard let value = SettingReader.parseSize(text), value > 0 else {
            throw invalid(flag != nil ? flagName(variable) : variable, text, "a byte count such as 65536, 16KiB or 64MiB")
        }
        return value
    }

    func duration(_ flag: String?, _ variable: String) throws -> Duration? {
        guard let text = string(flag, variable) else { return nil }
        guard let value = SettingReader.parseDuration(text) else {
            throw invalid(flag != nil ? flagName(variable) : variable, text, "a duration such as 500ms, 10s or 2m")
        }
        return value
    }

    func boolean(_ flag: Bool?, _ variable: String) throws -> Bool? {
        if let flag { return flag }
        guard let text = string(nil, variable) else { return nil }
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw invalid(variable, text, "true or false")
        }
    }

    /// `65536`, `16K`, `16KiB`, `64MiB`, `1GiB` (binary units).
    static func parseSize(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: " ")
        let digits = trimmed.prefix { $0.isASCII && $0.isNumber }
        guard let number = Int(digits) else { return nil }
        let unit = trimmed.dropFirst(digits.count).lowercased()
        let multiplier: Int
        switch unit {
        case "", "b": multiplier = 1
        case "k", "kb", "kib": multiplier = 1 << 10
        case "m", "mb", "mib": multiplier = 1 << 20
        case "g", "gb", "gib": multiplier = 1 << 30
        default: return nil
        }
        let (value, overflow) = number.multipliedReportingOverflow(by: multiplier)
        return overflow ? nil : value
    }

    /// `500ms`, `10s`, `2m`, `1h`, or a bare number of seconds (fractions allowed).
    static func parseDuration(_ text: String) -> Duration? {
        let trimmed = text.trimmingCharacters(in: " ").lowercased()
        let number = trimmed.prefix { ($0.isASCII && $0.isNumber) || $0 == "." }
        guard let value = Double(number), value >= 0, value.isFinite else { return nil }
        switch trimmed.dropFirst(number.count) {
        case "ms": return .milliseconds(Int64(value))
        case "", "s": return .milliseconds(Int64(value * 1000))
        case "m": return .seconds(Int64(value * 60))
        case "h": return .seconds(Int64(value * 3600))
        default: return nil
        }
    }

    private func flagName(_ variable: String) -> String {
        "--" + variable.dropFirst("CUMULUS_".count).lowercased().replacingOccurrences(of: "_", with: "-")
    }

    private func invalid(_ name: String, _ value: String, _ expected: String) -> ServerSettings.InvalidSetting {
        ServerSettings.InvalidSetting(name: name, value: value, expected: expected)
    }
}

private extension String {
    func trimmingCharacters(in character: Character) -> String {
        var slice = self[...]
        while slice.first == character { slice = slice.dropFirst() }
        while slice.last == character { slice = slice.dropLast() }
        return String(slice)
    }

    func replacingOccurrences(of target: Character, with replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}
