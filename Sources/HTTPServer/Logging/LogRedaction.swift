/// Keeps credentials out of log lines: the values of named query parameters become `REDACTED`.
enum LogRedaction {
    /// `target` with the values of the parameters in `names` (lowercase) replaced, compared on
    /// their percent-decoded, lowercased names. A target with none of them comes back as it is.
    static func redact(target: String, names: Set<String>) -> String {
        guard !names.isEmpty, let question = target.firstIndex(of: "?") else { return target }
        let pairs = target[target.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false)
        var redacted = false
        let rewritten = pairs.map { pair -> Substring in
            guard let equals = pair.firstIndex(of: "="), names.contains(decodedName(pair[..<equals])) else { return pair }
            redacted = true
            return pair[...equals] + "REDACTED"
        }
        guard redacted else { return target }
        return target[...question] + rewritten.joined(separator: "&")
    }

    /// A parameter name as compared: percent-decoded when it holds escapes, lowercased.
    private static func decodedName(_ name: Substring) -> String {
        guard name.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else { return name.lowercased() }
        return (PercentDecoding.decode(name, plusAsSpace: true) ?? String(name)).lowercased()
    }
}
