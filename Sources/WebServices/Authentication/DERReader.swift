/// Reads the few DER (ASN.1) elements a SubjectPublicKeyInfo is made of. Every read is
/// bounds-checked: bad input yields `nil`, never a trap.
struct DERReader {
    /// One element: its tag and its content bytes.
    struct Element {
        var tag: UInt8
        var content: ArraySlice<UInt8>
    }

    static let sequenceTag: UInt8 = 0x30
    static let objectIdentifierTag: UInt8 = 0x06
    static let bitStringTag: UInt8 = 0x03

    private var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
    }

    /// Whether every byte has been read.
    var isAtEnd: Bool { bytes.isEmpty }

    /// Reads the next element; `nil` when the bytes do not hold a well-formed one.
    mutating func read() -> Element? {
        guard let tag = bytes.first else { return nil }
        var rest = bytes.dropFirst()
        guard let first = rest.first else { return nil }
        rest = rest.dropFirst()
        var length = 0
        if first < 0x80 {
            length = Int(first)
        } else {
            // Long form: the low bits say how many length bytes follow; keys are small,
            // so more than three length bytes means the input is not a key.
            let count = Int(first & 0x7F)
            guard count >= 1, count <= 3, rest.count >= count else { return nil }
            for byte in rest.prefix(count) {
                length = length << 8 | Int(byte)
            }
            rest = rest.dropFirst(count)
        }
        guard rest.count >= length else { return nil }
        let content = rest.prefix(length)
        bytes = rest.dropFirst(length)
        return Element(tag: tag, content: content)
    }

    /// Reads the next element if it has `tag`.
    mutating func read(tag: UInt8) -> ArraySlice<UInt8>? {
        guard let element = read(), element.tag == tag else { return nil }
        return element.content
    }

    /// The dotted form of an OBJECT IDENTIFIER's content bytes, such as `1.2.840.10045.2.1`.
    static func dottedObjectIdentifier(_ content: ArraySlice<UInt8>) -> String? {
        var arcs: [UInt64] = []
        var value: UInt64 = 0
        for byte in content {
            guard value >> 56 == 0 else { return nil }
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 {
                arcs.append(value)
                value = 0
            }
        }
        guard let first = arcs.first, content.last.map({ $0 & 0x80 == 0 }) == true else { return nil }
        let head: [UInt64] = first < 80 ? [first / 40, first % 40] : [2, first - 80]
        return (head + arcs.dropFirst()).map(String.init).joined(separator: ".")
    }
}
