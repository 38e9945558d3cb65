/// Percent-decoding of paths, query components and form fields.
public enum PercentDecoding {
    /// Decodes `%XX` escapes (and `+` as a space when asked); `nil` if an escape is malformed.
    /// Decoded bytes that are not UTF-8 are replaced with U+FFFD, or make the result `nil` when
    /// `validatingUTF8` is set.
    public static func decode<S: StringProtocol>(_ text: S, plusAsSpace: Bool = false, validatingUTF8: Bool = false) -> String? {
        let utf8 = text.utf8
        // Most paths have nothing to decode: keep them as they are.
        if !utf8.contains(UInt8(ascii: "%")) && !(plusAsSpace && utf8.contains(UInt8(ascii: "+"))) {
            return String(text)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(ByteClass.hexValue),
                      let low = iterator.next().flatMap(ByteClass.hexValue) else { return nil }
                bytes.append(UInt8(high << 4 | low))
            } else if plusAsSpace && byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else {
                bytes.append(byte)
            }
        }
        return validatingUTF8 ? String(validating: bytes, as: UTF8.self) : String(decoding: bytes, as: UTF8.self)
    }

    /// The `name=value` pairs of a query or form body (`a=1&b&c=3`), still encoded, in order;
    /// empty pairs are skipped and a pair without `=` has an empty value.
    public static func encodedPairs(_ text: Substring) -> [(name: Substring, value: Substring)] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            guard let equals = pair.firstIndex(of: "=") else { return (pair, pair[pair.endIndex...]) }
            return (pair[..<equals], pair[pair.index(after: equals)...])
        }
    }
}
