/// Character classes of RFC 9110 used by the parser, as 256-entry lookup tables.
enum ByteClass {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let colon: UInt8 = 0x3A

    /// `tchar`: the bytes allowed in tokens (methods, header names, transfer codings).
    static let token: [Bool] = {
        var table = [Bool](repeating: false, count: 256)
        for byte in UInt8(ascii: "0")...UInt8(ascii: "9") { table[Int(byte)] = true }
        for byte in UInt8(ascii: "a")...UInt8(ascii: "z") { table[Int(byte)] = true }
        for byte in UInt8(ascii: "A")...UInt8(ascii: "Z") { table[Int(byte)] = true }
        for char in "!#$%&'*+-.^_`|~".utf8 { table[Int(char)] = true }
        return table
    }()

    /// Bytes allowed in a header field value: HTAB, SP, VCHAR and obs-text.
    static let fieldValue: [Bool] = {
        var table = [Bool](repeating: false, count: 256)
        table[0x09] = true
        for byte in 0x20...0x7E { table[byte] = true }
        for byte in 0x80...0xFF { table[byte] = true }
        return table
    }()

    /// Bytes allowed in a request-target: visible ASCII.
    static let target: [Bool] = {
        var table = [Bool](repeating: false, count: 256)
        for byte in 0x21...0x7E { table[byte] = true }
        return table
    }()

    /// Bytes allowed in chunk extensions: HTAB and printable ASCII.
    static let chunkExtension: [Bool] = {
        var table = [Bool](repeating: false, count: 256)
        table[0x09] = true
        for byte in 0x20...0x7E { table[byte] = true }
        return table
    }()

    /// Whether any of the eight bytes of `word` is `byte`, for scans eight bytes at a time
    /// (exact: the lowest matching byte always sets its flag, and a flag is only ever set at or
    /// above a matching byte).
    @inline(__always)
    static func word(_ word: UInt64, holds byte: UInt8) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let x = word ^ (ones &* UInt64(byte))
        return (x &- ones) & ~x & (ones &* 0x80) != 0
    }

    /// The value of a hexadecimal digit, or nil.
    @inline(__always)
    static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
