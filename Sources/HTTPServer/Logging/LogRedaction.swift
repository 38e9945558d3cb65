/// Keeps credentials out of log lines: the values of named query parameters, and the path
/// segment after a capability URL's prefix, become `REDACTED`.
public enum LogRedaction {
    /// `target` with the values of the parameters in `names` (lowercase) replaced, compared on
    /// their percent-decoded, lowercased names. A target with none of them comes back as it is.
    static func redact(target: String, names: Set<String>) -> String {
        var line: [UInt8] = []
        append(target: target, pathPrefixes: [], names: RedactedNames(names), to: &line)
        return String(decoding: line, as: UTF8.self)
    }

    /// `target` with the path segment that follows any of `prefixes` replaced by `REDACTED`:
    /// for capability URLs, whose credential is part of the path.
    public static func redact(path target: String, prefixes: [String]) -> String {
        var line: [UInt8] = []
        append(target: target, pathPrefixes: prefixes, names: RedactedNames([]), to: &line)
        return String(decoding: line, as: UTF8.self)
    }

    /// Appends `target` to a log line, redacted: the segment after the first of `pathPrefixes`
    /// it starts with, and the values of the query parameters in `names`. Runs on every logged
    /// request, so it works on the target's bytes and writes straight into the line.
    static func append(target: String, pathPrefixes: [String], names: RedactedNames, to line: inout [UInt8]) {
        var target = target
        target.withUTF8 { bytes in
            var position = 0
            for prefix in pathPrefixes where startsWith(bytes, prefix) {
                let start = prefix.utf8.count
                var end = start
                while end < bytes.count, bytes[end] != UInt8(ascii: "/"), bytes[end] != UInt8(ascii: "?") { end += 1 }
                if end != start {
                    line.append(contentsOf: prefix.utf8)
                    line.append(contentsOf: "REDACTED".utf8)
                    position = end
                }
                break
            }
            guard !names.names.isEmpty, let question = bytes[position...].firstIndex(of: UInt8(ascii: "?")) else {
                line.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[position...]))
                return
            }
            line.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[position...question]))
            var first = true
            PercentDecoding.forEachPairBounds(in: bytes, from: question + 1) { name, value in
                if !first { line.append(UInt8(ascii: "&")) }
                first = false
                // A name alone (`&tok&`) has no value to hide.
                if let value, matches(UnsafeBufferPointer(rebasing: bytes[name]), names) {
                    line.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[name.lowerBound..<value.lowerBound]))
                    line.append(contentsOf: "REDACTED".utf8)
                } else {
                    line.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[name.lowerBound..<(value?.upperBound ?? name.upperBound)]))
                }
                return true
            }
        }
    }

    private static func startsWith(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: String) -> Bool {
        let wanted = prefix.utf8
        return bytes.count >= wanted.count && zip(bytes, wanted).allSatisfy { $0 == $1 }
    }

    /// Whether a parameter name, percent-decoded and lowercased, is one of `names`.
    private static func matches(_ name: UnsafeBufferPointer<UInt8>, _ names: RedactedNames) -> Bool {
        if !name.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") || $0 >= 0x80 }) {
            // ASCII without escapes: compared with each name of its length, byte by byte,
            // lowercased on the way (a name with other characters cannot equal it), so nothing
            // is allocated for the parameters of every logged request.
            guard name.count < names.asciiByLength.count else { return false }
            for candidate in names.asciiByLength[name.count] {
                if zip(candidate, name).allSatisfy({ $0 == ($1 >= 0x41 && $1 <= 0x5A ? $1 | 0x20 : $1) }) { return true }
            }
            return false
        }
        let text = String(decoding: name, as: UTF8.self)
        return names.names.contains((PercentDecoding.decode(text, plusAsSpace: true) ?? text).lowercased())
    }
}

/// The query parameter names whose values are redacted, lowercased, and their ASCII ones also
/// as bytes by length: compared with two or three parameters of every logged request.
struct RedactedNames: Sendable {
    /// Every name, lowercased.
    let names: Set<String>
    /// The ASCII names as bytes, at the index of their length.
    let asciiByLength: [[[UInt8]]]

    init(_ names: Set<String>) {
        self.names = Set(names.map { $0.lowercased() })
        var byLength: [[[UInt8]]] = []
        for name in self.names where name.utf8.allSatisfy({ $0 < 0x80 }) {
            let bytes = Array(name.utf8)
            while byLength.count <= bytes.count { byLength.append([]) }
            byLength[bytes.count].append(bytes)
        }
        asciiByLength = byLength
    }
}
