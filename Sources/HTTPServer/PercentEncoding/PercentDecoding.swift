import Glibc

/// Percent-decoding of paths, query components and form fields.
public enum PercentDecoding {
    /// Decodes `%XX` escapes (and `+` as a space when asked); `nil` if an escape is malformed.
    /// Decoded bytes that are not UTF-8 are replaced with U+FFFD, or make the result `nil` when
    /// `validatingUTF8` is set.
    public static func decode<S: StringProtocol>(_ text: S, plusAsSpace: Bool = false, validatingUTF8: Bool = false) -> String? {
        // Strings and substrings of native strings hand out their bytes in place.
        if let decoded = text.utf8.withContiguousStorageIfAvailable({
            decode(bytes: $0, plusAsSpace: plusAsSpace, validatingUTF8: validatingUTF8)
        }) {
            return decoded
        }
        var copy = String(text)
        return copy.withUTF8 { decode(bytes: $0, plusAsSpace: plusAsSpace, validatingUTF8: validatingUTF8) }
    }

    private static func decode(bytes text: UnsafeBufferPointer<UInt8>, plusAsSpace: Bool, validatingUTF8: Bool) -> String? {
        // Most paths and values have nothing to decode: keep them as they are.
        var index = plainRun(text, from: 0, plusAsSpace: plusAsSpace)
        if index == text.count {
            return String(decoding: text, as: UTF8.self)
        }
        // Decoded into a scratch buffer (on the stack unless large) and made a string once: a
        // signed-in request's web auth token, escaped in its query, is decoded on every request.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: text.count) { buffer -> String? in
            let base = text.baseAddress!, output = buffer.baseAddress!
            output.update(from: base, count: index)
            var count = index
            while index < text.count {
                let byte = text[index]
                if byte == UInt8(ascii: "%") {
                    guard index + 2 < text.count, let high = ByteClass.hexValue(text[index + 1]),
                        let low = ByteClass.hexValue(text[index + 2])
                    else { return nil }
                    output[count] = UInt8(high << 4 | low)
                    index += 3
                    count += 1
                } else if plusAsSpace && byte == UInt8(ascii: "+") {
                    output[count] = UInt8(ascii: " ")
                    index += 1
                    count += 1
                } else {
                    // Bytes that stay as they are, copied in one go.
                    let end = plainRun(text, from: index, plusAsSpace: plusAsSpace)
                    (output + count).update(from: base + index, count: end - index)
                    count += end - index
                    index = end
                }
            }
            let decoded = UnsafeBufferPointer(start: output, count: count)
            return validatingUTF8 ? String(validating: decoded, as: UTF8.self) : String(decoding: decoded, as: UTF8.self)
        }
    }

    /// The offset of the first `%` (or `+`, when it stands for a space) at or after `start`, or
    /// the text's length: eight bytes at a time, as a token of a hundred bytes has a handful.
    private static func plainRun(_ text: UnsafeBufferPointer<UInt8>, from start: Int, plusAsSpace: Bool) -> Int {
        var index = start
        if let base = text.baseAddress {
            let raw = UnsafeRawPointer(base)
            while index + 8 <= text.count {
                let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                if ByteClass.word(word, holds: UInt8(ascii: "%")) || (plusAsSpace && ByteClass.word(word, holds: UInt8(ascii: "+"))) {
                    break
                }
                index += 8
            }
        }
        while index < text.count, text[index] != UInt8(ascii: "%"), !(plusAsSpace && text[index] == UInt8(ascii: "+")) { index += 1 }
        return index
    }

    /// The `name=value` pairs of a query or form body (`a=1&b&c=3`), still encoded, in order;
    /// empty pairs are skipped and a pair without `=` has an empty value.
    public static func encodedPairs(_ text: Substring) -> [(name: Substring, value: Substring)] {
        var pairs: [(name: Substring, value: Substring)] = []
        var contiguous = text
        contiguous.withUTF8 { bytes in
            let utf8 = text.utf8
            let base = utf8.startIndex
            // Offsets into a native string's UTF-8 become indices in constant time.
            func index(_ offset: Int) -> String.Index { utf8.index(base, offsetBy: offset) }
            forEachNamedPair(in: bytes) { name, value in
                pairs.append(
                    (text[index(name.lowerBound)..<index(name.upperBound)], text[index(value.lowerBound)..<index(value.upperBound)]))
                return true
            }
        }
        return pairs
    }

    /// Calls `body` with the bounds of each pair of the query or form text `bytes[start...]`, in
    /// order, empty pairs too, until it returns `false`: the name's, and the value's after its
    /// `=` (`nil` when the pair has none). Splits on the bytes of `&` and `=`, which are never
    /// inside another character, so no grapheme breaking is paid for.
    static func forEachPairBounds(
        in bytes: UnsafeBufferPointer<UInt8>, from start: Int, _ body: (_ name: Range<Int>, _ value: Range<Int>?) -> Bool
    ) {
        guard let base = bytes.baseAddress else {
            // An empty text is one empty pair.
            if start == 0 { _ = body(0..<0, nil) }
            return
        }
        var start = start
        while start <= bytes.count {
            // memchr: a credential in a query is 64 bytes or more, read several times a request.
            let end = first(UInt8(ascii: "&"), in: base, start..<bytes.count) ?? bytes.count
            let more =
                if let equals = first(UInt8(ascii: "="), in: base, start..<end) {
                    body(start..<equals, equals + 1..<end)
                } else {
                    body(start..<end, nil)
                }
            guard more, end < bytes.count else { return }
            start = end + 1
        }
    }

    /// The offset of the first `byte` in `base[range]`, if any.
    private static func first(_ byte: UInt8, in base: UnsafePointer<UInt8>, _ range: Range<Int>) -> Int? {
        guard !range.isEmpty, let found = memchr(base + range.lowerBound, Int32(byte), range.count) else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    /// Calls `body` with the bounds in `bytes` (a query or form text) of each pair's name and
    /// value, in order, until it returns `false`; empty pairs are skipped and a pair without
    /// `=` has an empty value.
    static func forEachNamedPair(in bytes: UnsafeBufferPointer<UInt8>, _ body: (_ name: Range<Int>, _ value: Range<Int>) -> Bool) {
        forEachPairBounds(in: bytes, from: 0) { name, value in
            if name.isEmpty, value == nil { return true }
            return body(name, value ?? name.upperBound..<name.upperBound)
        }
    }

    /// The query or form value at `range` of `bytes`, decoded (`+` as a space); as sent when an
    /// escape is malformed.
    static func decodedValue(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        let value = UnsafeBufferPointer(rebasing: bytes[range])
        return decode(bytes: value, plusAsSpace: true, validatingUTF8: false) ?? String(decoding: value, as: UTF8.self)
    }

    /// Whether the encoded query or form name at `range` of `bytes` decodes (`+` as a space) to
    /// `name`, as strings compare (canonically equivalent characters are equal); byte for byte,
    /// without decoding, when both are ASCII and the encoded name holds no escape.
    static func encodedName(_ range: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>, is name: String) -> Bool {
        let encoded = UnsafeBufferPointer(rebasing: bytes[range])
        var name = name
        let plain = name.withUTF8 { wanted -> Bool? in
            // Plain ASCII on both sides, no escapes (nearly every name): equal exactly when the
            // bytes are, `+` read as a space. Anything else compares as decoded strings, as
            // Swift compares them (canonical equivalence).
            for byte in wanted where byte >= 0x80 { return nil }
            var equal = encoded.count == wanted.count
            for index in 0..<encoded.count {
                let byte = encoded[index]
                if byte >= 0x80 || byte == UInt8(ascii: "%") { return nil }
                if equal, (byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte) != wanted[index] { equal = false }
            }
            return equal
        }
        if let plain { return plain }
        return decodedValue(bytes, range) == name
    }
}
