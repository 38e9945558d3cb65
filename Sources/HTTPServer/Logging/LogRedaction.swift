/// Keeps credentials out of log lines: the values of named query parameters become `REDACTED`.
public enum LogRedaction {
    /// `target` with the values of the parameters in `names` (lowercase) replaced, compared on
    /// their percent-decoded, lowercased names. A target with none of them comes back as it is.
    /// Runs on every logged request: it scans bytes and builds a new string only to redact.
    static func redact(target: String, names: Set<String>) -> String {
        guard !names.isEmpty else { return target }
        var scanned = target
        guard let offset = scanned.withUTF8({ $0.firstIndex(of: UInt8(ascii: "?")) }) else { return target }
        let query = Substring(target.utf8[target.utf8.index(target.utf8.startIndex, offsetBy: offset + 1)...])
        var values: [Range<String.Index>] = []
        PercentDecoding.forEachEncodedPair(query) { name, value in
            // A name alone (`&tok&`) has no value to hide.
            if name.endIndex != value.startIndex, matches(name, names) { values.append(value.startIndex..<value.endIndex) }
            return true
        }
        guard !values.isEmpty else { return target }
        var redacted = ""
        redacted.reserveCapacity(target.utf8.count)
        var copied = target.startIndex
        for value in values {
            redacted += target[copied..<value.lowerBound]
            redacted += "REDACTED"
            copied = value.upperBound
        }
        redacted += target[copied...]
        return redacted
    }

    /// `target` with the path segment that follows any of `prefixes` replaced by `REDACTED`:
    /// for capability URLs, whose credential is part of the path.
    public static func redact(path target: String, prefixes: [String]) -> String {
        for prefix in prefixes where target.hasPrefix(prefix) {
            let rest = target.dropFirst(prefix.count)
            let end = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
            guard end != rest.startIndex else { return target }
            return prefix + "REDACTED" + rest[end...]
        }
        return target
    }

    /// Whether a parameter name, percent-decoded and lowercased, is one of `names`.
    private static func matches(_ name: Substring, _ names: Set<String>) -> Bool {
        let bytes = name.utf8
        if !bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") || $0 >= 0x80 }) {
            // ASCII without escapes: lowercase the bytes themselves, and only for a name of a
            // length one of `names` has.
            guard names.contains(where: { $0.utf8.count == bytes.count }) else { return false }
            return names.contains(String(decoding: bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self))
        }
        return names.contains((PercentDecoding.decode(name, plusAsSpace: true) ?? String(name)).lowercased())
    }
}
