import CloudStore
import Testing

@Suite("Container identifiers")
struct ContainerIdentifierTests {
    /// The rule as written: `iCloud.`, then letters, digits, `.`, `-` or `_`, neither starting
    /// nor ending with `.`, at most 255 bytes in all; on strings, as a reference.
    private static func reference(_ text: String) -> Bool {
        guard text.hasPrefix("iCloud."), text.utf8.count <= 255 else { return false }
        let rest = text.utf8.dropFirst(7)
        guard let first = rest.first, first != UInt8(ascii: "."), rest.last != UInt8(ascii: ".") else { return false }
        return rest.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    @Test("identifiers are accepted exactly as the rule says, on generated text")
    func validity() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["iCloud.", "icloud.", "iCloud", ".", "com", "example", "-", "_", "Notes", "9", "é", " ", "/", "\u{301}", ""]
        var texts = [
            "iCloud.a", "iCloud.", "iCloud..a", "iCloud.a.", "iCloud.com.example.Notes", "iCloud." + String(repeating: "a", count: 248),
            "iCloud." + String(repeating: "a", count: 249), "iCloud.\u{301}a", "xiCloud.a", "",
        ]
        for _ in 0..<5_000 {
            texts.append((0..<Int.random(in: 1...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined())
        }
        for text in texts {
            #expect(ContainerIdentifier.isValid(text) == Self.reference(text), "\(text)")
        }
        #expect(ContainerIdentifier.isValid("iCloud." + String(repeating: "a", count: 248)))
        #expect(!ContainerIdentifier.isValid("iCloud." + String(repeating: "a", count: 249)))
    }
}
