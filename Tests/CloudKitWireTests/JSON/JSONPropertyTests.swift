import CloudKitWire
import TestSupport
import Testing

/// Random inputs from fixed seeds: the parser must never crash, and whatever it accepts must
/// survive a round trip through the writer.
@Suite("JSON properties")
struct JSONPropertyTests {
    /// Bytes that make random input likely to get deep into the grammar.
    private static let grammarBytes = Array(#"{}[]:,"\ -+.eE0123456789tfnulrsabu"#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xA9, 0xED, 0xF0, 0xFF]

    private func expectRoundTrip(_ value: JSONValue) {
        let text = value.serialized()
        do {
            let back = try JSONValue.parse(text)
            #expect(back == value)
            #expect(back.serialized() == text)
        } catch {
            Issue.record("serialized text did not parse: \(error) in \(String(decoding: text, as: UTF8.self))")
        }
    }

    @Test("random bytes never crash the parser")
    func randomBytes() {
        var generator = SeededGenerator(seed: 0xC10D)
        var accepted = 0
        for round in 0..<20_000 {
            let length = Int.random(in: 0...48, using: &generator)
            let bytes = (0..<length).map { _ in
                round % 2 == 0
                    ? UInt8.random(in: 0...255, using: &generator)
                    : Self.grammarBytes.randomElement(using: &generator)!
            }
            do {
                let value = try JSONValue.parse(bytes)
                accepted += 1
                expectRoundTrip(value)
            } catch {
                #expect(error.offset >= 0 && error.offset <= bytes.count)
            }
        }
        // Grammar-shaped noise must sometimes be valid, or this test exercises too little.
        #expect(accepted > 50)
    }

    @Test("mutated valid documents never crash the parser")
    func mutatedDocuments() {
        var generator = SeededGenerator(seed: 7)
        let documents = acceptedCorpus.map(\.bytes).filter { !$0.isEmpty }
        for _ in 0..<20_000 {
            var bytes = documents.randomElement(using: &generator)!
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let position = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes[position] = Self.grammarBytes.randomElement(using: &generator)!
                case 1: bytes.insert(UInt8.random(in: 0...255, using: &generator), at: position)
                default: if bytes.count > 1 { bytes.remove(at: position) }
                }
            }
            do {
                expectRoundTrip(try JSONValue.parse(bytes))
            } catch {
                #expect(error.offset >= 0 && error.offset <= bytes.count)
            }
        }
    }

    @Test("parse(serialize(v)) == v for random values")
    func randomValues() {
        var generator = SeededGenerator(seed: 2024)
        for _ in 0..<3_000 {
            expectRoundTrip(randomValue(depth: 0, using: &generator))
        }
    }

    private func randomValue(depth: Int, using generator: inout SeededGenerator) -> JSONValue {
        let kind = Int.random(in: 0..<(depth < 5 ? 8 : 6), using: &generator)
        switch kind {
        case 0:
            return .null
        case 1:
            return .bool(Bool.random(using: &generator))
        case 2:
            // Mostly the edges of the range and the double-precision boundary.
            let edges: [Int64] = [.max, .min, 0, -1, 1 << 53, (1 << 53) + 1, -(1 << 53) - 1]
            return .integer(
                Bool.random(using: &generator)
                    ? edges.randomElement(using: &generator)!
                    : Int64(bitPattern: generator.next()))
        case 3:
            var double = Double(bitPattern: generator.next())
            if !double.isFinite { double = Double.random(in: -1e6...1e6, using: &generator) }
            return .double(double)
        case 4, 5:
            return .string(randomString(using: &generator))
        case 6:
            let count = Int.random(in: 0...5, using: &generator)
            return .array((0..<count).map { _ in randomValue(depth: depth + 1, using: &generator) })
        default:
            let count = Int.random(in: 0...(Bool.random(using: &generator) ? 5 : 30), using: &generator)
            var object = JSONObject()
            for _ in 0..<count {
                object[randomString(using: &generator)] = randomValue(depth: depth + 1, using: &generator)
            }
            return .object(object)
        }
    }

    private func randomString(using generator: inout SeededGenerator) -> String {
        let pieces: [String] = [
            "a", "Z", "0", " ", "\"", "\\", "/", "\n", "\u{0}", "\u{1F}", "é", "中", "😀", "\u{2028}", "\u{FFFF}", "recordName",
        ]
        let count = Int.random(in: 0...12, using: &generator)
        return (0..<count).map { _ in pieces.randomElement(using: &generator)! }.joined()
    }
}
