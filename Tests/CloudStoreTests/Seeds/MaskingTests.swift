import TestSupport
import Testing

@testable import CloudStore

/// Masking personal values: deterministic per value, never the value itself, of the same type
/// and shape.
@Suite struct MaskingTests {
    static let masker = ValueMasker(key: Array("a masking key of thirty-two bytes".utf8))

    /// Random values of every kind a personal field holds, some repeated.
    static func values(count: Int) -> [(field: String, value: FieldValue)] {
        var random = SeededGenerator(seed: 41)
        let letters = Array("abcdefghijklmnopqrstuvwxyzÀéß ")
        func text(_ length: Int) -> String { String((0..<length).map { _ in letters.randomElement(using: &random)! }) }
        return (0..<count).map { index -> (String, FieldValue) in
            switch index % 9 {
            case 0: ("email", .string("\(text(5).filter { $0 != " " })x@\(["mail.com", "uni.edu"][index % 2])"))
            case 1:
                ("phone", .string("+1 (\(Int.random(in: 100...999, using: &random))) 555-\(Int.random(in: 1000...9999, using: &random))"))
            case 2: ("fullName", .string(["Ada Lovelace", "Grace Hopper", "Alan", "Q"][index % 4] + (index % 7 == 0 ? "" : " " + text(4))))
            case 3: ("notes", .string(text(Int.random(in: 1...60, using: &random)) + "! 42."))
            case 4: ("age", .int64(Int64.random(in: -1_000_000...1_000_000_000, using: &random) / Int64(1 + index % 1000)))
            case 5: ("score", .double(Double.random(in: -1e6...1e6, using: &random)))
            case 6: ("born", .timestamp(Int64.random(in: 0...2_000_000_000_000, using: &random)))
            case 7:
                (
                    "home",
                    .location(
                        Location(
                            latitude: Double.random(in: -89...89, using: &random), longitude: Double.random(in: -179...179, using: &random))
                    )
                )
            default: ("secret", .bytes((0..<(1 + index % 40)).map { _ in UInt8.random(in: 0...255, using: &random) }))
            }
        }
    }

    @Test func maskingIsDeterministicNeverReturnsTheValueAndKeepsItsShape() throws {
        for (field, value) in Self.values(count: 5000) {
            let fake = try #require(Self.masker.mask(value, fieldName: field))
            #expect(fake != value, "\(field) \(value) came back as it was")
            #expect(fake.type == value.type)
            #expect(Self.masker.mask(value, fieldName: field) == fake, "the same value gives the same fake")
            switch (value, fake) {
            case (.string(let original), .string(let masked)):
                if original.contains("@") { #expect(masked.hasSuffix(".com") || masked.hasSuffix(".org") || masked.hasSuffix(".net")) }
                if field == "phone" { #expect(masked.map { $0.isNumber } == original.map { $0.isNumber }, "the phone number's layout") }
                if field == "fullName" { #expect(masked.split(separator: " ").count == original.split(separator: " ").count) }
            case (.int64(let original), .int64(let masked)):
                #expect(String(original.magnitude).count == String(masked.magnitude).count && (original < 0) == (masked < 0))
            case (.location(let original), .location(let masked)):
                #expect(original.distance(to: masked) < 10_000, "a place nearby")
            case (.bytes(let original), .bytes(let masked)):
                #expect(original.count == masked.count)
            default:
                break
            }
        }
    }

    @Test func theSameValueGivesTheSameFakeInEveryFieldAndAnotherKeyAnother() throws {
        let email = FieldValue.string("ada@example.edu")
        #expect(Self.masker.mask(email, fieldName: "email") == Self.masker.mask(email, fieldName: "ownerEmail"))
        let other = ValueMasker(key: Array("another container's masking key!".utf8))
        #expect(other.mask(email, fieldName: "email") != Self.masker.mask(email, fieldName: "email"))
        let list = FieldValue.list(.string, [.string("a@b.co"), .string("c@d.co")])
        guard case .list(_, let masked)? = Self.masker.mask(list, fieldName: "emails") else { throw TestFailure("not a list") }
        #expect(masked == [Self.masker.mask(.string("a@b.co"), fieldName: "x"), Self.masker.mask(.string("c@d.co"), fieldName: "x")])
        #expect(Self.masker.mask(.reference(Reference(recordName: "p1")), fieldName: "owner") == nil)
        #expect(Self.masker.mask(.string(""), fieldName: "name") == .string(""), "an empty value holds nothing")
    }
}
