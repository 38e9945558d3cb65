/// Splits text into the tokens `CONTAINS_ALL_TOKENS` and `CONTAINS_ANY_TOKENS` match: runs of
/// letters and digits, compared without case. (Storage's full-text index also ignores
/// diacritics, as its `unicode61` tokenizer does.)
enum TextTokens {
    /// The tokens of `text`, lowercased, in order, duplicates kept.
    static func tokens(of text: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        for character in text {
            if character.isLetter || character.isNumber {
                current.append(character)
            } else if !current.isEmpty {
                tokens.append(current.lowercased())
                current = ""
            }
        }
        if !current.isEmpty { tokens.append(current.lowercased()) }
        return tokens
    }
}
