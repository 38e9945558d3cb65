/// Word-at-a-time tests for the bytes strings care about, so the parser and the writer can
/// skip over plain text eight bytes at a time (the "SWAR" technique).
enum JSONByteScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Whether any of the eight bytes of `word` is `"`, `\`, a control character below 0x20,
    /// or a byte with the high bit set (which the parser must see to validate UTF-8).
    /// A `true` may be a false alarm next to a real hit; callers then look byte by byte.
    @inline(__always)
    static func mayNeedAttention(_ word: UInt64) -> Bool {
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let hasQuote = (quote &- ones) & ~quote
        let hasBackslash = (backslash &- ones) & ~backslash
        let hasControl = (word &- ones &* 0x20) & ~word
        return (hasQuote | hasBackslash | hasControl | word) & highBits != 0
    }

    /// Reads eight bytes at `offset`, which must leave at least eight bytes in `bytes`.
    @inline(__always)
    static func word(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress! + offset).loadUnaligned(as: UInt64.self))
    }
}
