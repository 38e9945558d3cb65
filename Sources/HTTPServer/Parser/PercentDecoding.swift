/// Percent-decoding of paths and query components.
enum PercentDecoding {
    /// Decodes `%XX` escapes (and `+` as a space when asked); `nil` if an escape is malformed.
    /// Decoded bytes that are not UTF-8 are replaced with U+FFFD.
    static func decode<S: StringProtocol>(_ text: S, plusAsSpace: Bool = false) -> String? {
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
        return String(decoding: bytes, as: UTF8.self)
    }
}
