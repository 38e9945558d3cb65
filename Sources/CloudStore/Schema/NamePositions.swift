import Glibc

/// Where each name of a list sits, for lookups by name. A save looks up its record type and
/// each of its fields several times, and hashing a name costs more than comparing it with the
/// dozen names of a type: a short list of ASCII names is searched by length and first bytes,
/// without hashing. Answers what a `[String: Int]` of the same names would (first occurrence
/// wins; a name that is not ASCII is looked up as strings compare).
struct NamePositions: Sendable {
    /// Each name's length and first eight bytes, in list order; empty when the list is long or
    /// holds a name that is not ASCII.
    private let keys: [UInt64]
    /// Each name's bytes, in list order, to confirm a match of `keys`.
    private let bytes: [[UInt8]]
    private let dictionary: [String: Int]

    /// Lists longer than this are searched by hashing.
    private static let longestScanned = 32

    init(_ names: [String]) {
        dictionary = Dictionary(names.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first })
        if names.count <= Self.longestScanned, names.allSatisfy({ $0.utf8.allSatisfy { $0 < 0x80 } }) {
            bytes = names.map { Array($0.utf8) }
            keys = bytes.map { $0.withUnsafeBufferPointer(Self.key) }
        } else {
            bytes = []
            keys = []
        }
    }

    /// The position of the first `name` in the list.
    func position(of name: String) -> Int? {
        guard !keys.isEmpty else { return dictionary[name] }
        var name = name
        let found = name.withUTF8 { wanted -> Int?? in
            // A name that is not ASCII may still equal one of the list as strings compare
            // (U+212A KELVIN SIGN is "K"): asked of the dictionary.
            for byte in wanted where byte >= 0x80 { return nil }
            let key = Self.key(wanted)
            for index in keys.indices where keys[index] == key {
                let candidate = bytes[index]
                if candidate.count == wanted.count,
                    wanted.isEmpty || candidate.withUnsafeBufferPointer({ memcmp($0.baseAddress!, wanted.baseAddress!, wanted.count) == 0 })
                {
                    return .some(index)
                }
            }
            return .some(nil)
        }
        return found ?? dictionary[name]
    }

    /// The length and the first eight bytes of `text`, in one word.
    private static func key(_ text: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var prefix: UInt64 = 0
        for index in 0..<min(8, text.count) { prefix |= UInt64(text[index]) << (8 * UInt64(index)) }
        return prefix ^ (UInt64(truncatingIfNeeded: text.count) &* 0x9E37_79B9_7F4A_7C15)
    }
}
