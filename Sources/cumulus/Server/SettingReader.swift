/// Reads sizes and durations as `cumulus serve`'s settings write them.
enum SettingReader {
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
        case "d": return .seconds(Int64(value * 86_400))
        default: return nil
        }
    }
}

extension String {
    fileprivate func trimmingCharacters(in character: Character) -> String {
        var slice = self[...]
        while slice.first == character { slice = slice.dropFirst() }
        while slice.last == character { slice = slice.dropLast() }
        return String(slice)
    }

}
