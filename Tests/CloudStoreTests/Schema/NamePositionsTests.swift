import Testing

@testable import CloudStore

@Suite("Name positions")
struct NamePositionsTests {
    /// What a dictionary of the same names answers: the first occurrence, by string equality.
    private static func expected(_ names: [String], _ name: String) -> Int? {
        Dictionary(names.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first })[name]
    }

    @Test("answers as a dictionary of the names does, on generated lists and lookups")
    func sameAsADictionary() {
        var generator = SystemRandomNumberGenerator()
        // Names that share their length and first eight bytes, differ only past them, repeat,
        // are empty, or are not ASCII; lists short enough to be scanned and longer.
        let alphabet: [String] = ["a", "b", "_", "1", "é", "K", "\u{212A}", "e\u{301}"]
        let stems = ["", "title", "___createTime", "abcdefgh1", "abcdefgh2", "abcdefgh", "Kelvin", "caf"]
        func randomName() -> String {
            var name = stems.randomElement(using: &generator)!
            for _ in 0..<Int.random(in: 0...2, using: &generator) { name += alphabet.randomElement(using: &generator)! }
            return name
        }
        for _ in 0..<2_000 {
            let names = (0..<Int.random(in: 0...40, using: &generator)).map { _ in randomName() }
            let positions = NamePositions(names)
            for name in names + (0..<10).map({ _ in randomName() }) {
                #expect(positions.position(of: name) == Self.expected(names, name), "\(name) in \(names)")
            }
        }
    }

    @Test("a name equal only as strings compare is found as a dictionary finds it")
    func canonicalEquivalence() {
        let positions = NamePositions(["Kelvin", "café"])
        #expect(positions.position(of: "\u{212A}elvin") == 0)
        #expect(positions.position(of: "cafe\u{301}") == 1)
        #expect(positions.position(of: "kelvin") == nil)
        #expect(positions.position(of: "Kelvin ") == nil)
    }
}
