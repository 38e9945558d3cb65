extension ValueMasker {
    // MARK: - Fakes of text

    static let firstNames = [
        "Ada", "Alan", "Amara", "Ben", "Carmen", "Chen", "Dara", "Elena", "Emil", "Farah", "Grace", "Hugo", "Ines", "Ivan",
        "Jonas", "Kai", "Lena", "Liam", "Maya", "Mateo", "Nadia", "Noah", "Olga", "Omar", "Priya", "Quinn", "Rosa", "Sami",
        "Tara", "Theo", "Uma", "Victor", "Wen", "Yara", "Zoe", "Luca",
    ]
    static let lastNames = [
        "Abbott", "Bauer", "Costa", "Dubois", "Eriksen", "Fischer", "Garcia", "Hansen", "Ito", "Jensen", "Kowalski", "Larsen",
        "Moreau", "Novak", "Okafor", "Petrov", "Quint", "Rossi", "Silva", "Tanaka", "Ueda", "Varga", "Weber", "Xu", "Young",
        "Zimmer", "Lindqvist", "Mendes",
    ]
    static let words = [
        "apple", "river", "stone", "light", "garden", "window", "paper", "cloud", "music", "yellow", "bridge", "forest", "coffee",
        "orange", "silver", "market", "little", "quiet", "evening", "morning", "north", "summer", "winter", "table", "letter",
        "harbor", "meadow", "pencil", "candle", "travel", "ocean", "planet", "cotton", "maple", "violet", "sun", "sea", "map",
        "a", "in", "on", "the", "and", "of", "to", "is", "it", "by", "tea", "owl", "fig", "ink", "jar", "key",
    ]
    static let streets = ["Maple", "Oak", "Harbor", "Mill", "Cedar", "Station", "Park", "Church", "Lake", "Hill", "Orchard", "River"]
    static let streetKinds = ["Street", "Road", "Lane", "Avenue", "Way", "Close"]
    static let domains = ["example.com", "example.org", "example.net"]

    /// `first.last12@example.org`.
    static func fakeEmail(_ stream: inout FakeStream) -> String {
        let first = stream.pick(firstNames).lowercased()
        let last = stream.pick(lastNames).lowercased()
        return "\(first).\(last)\(stream.next() % 100)@\(stream.pick(domains))"
    }

    /// `text` with every digit replaced: its layout, separators and a leading `+` kept.
    static func fakeDigits(in text: String, _ stream: inout FakeStream) -> String {
        String(
            text.map { character -> Character in
                guard character.isASCII, character.isNumber else { return character }
                return Character(String(stream.next() % 10))
            })
    }

    /// As many names as `text` has words: a first name, then last names, in its case.
    static func fakeName(like text: String, _ stream: inout FakeStream) -> String {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        return parts.enumerated().map { index, part -> String in
            guard !part.isEmpty else { return "" }
            let name = index == 0 && parts.count > 1 || parts.count == 1 ? stream.pick(firstNames) : stream.pick(lastNames)
            return cased(name, like: part)
        }.joined(separator: " ")
    }

    /// `12 Maple Lane`.
    static func fakeAddress(_ stream: inout FakeStream) -> String {
        "\(1 + stream.next() % 240) \(stream.pick(streets)) \(stream.pick(streetKinds))"
    }

    /// Words of about the lengths of `text`'s, in their case, with its spaces, punctuation and
    /// digits' places kept (each digit another).
    static func fakeText(like text: String, _ stream: inout FakeStream) -> String {
        var result = ""
        var word = ""
        func flush() {
            guard !word.isEmpty else { return }
            let near = words.filter { abs($0.count - word.count) <= 1 }
            result += cased(stream.pick(near.isEmpty ? words : near), like: Substring(word))
            word = ""
        }
        for character in text {
            if character.isLetter {
                word.append(character)
            } else {
                flush()
                result.append(character.isASCII && character.isNumber ? Character(String(stream.next() % 10)) : character)
            }
        }
        flush()
        return result
    }

    /// `word` in the case `model` is written in: all capitals, capitalised, or as it is.
    private static func cased(_ word: String, like model: Substring) -> String {
        if model.count > 1, model == model.uppercased() { return word.uppercased() }
        if model.first?.isUppercase == true { return word.prefix(1).uppercased() + word.dropFirst().lowercased() }
        return word.lowercased()
    }
}
