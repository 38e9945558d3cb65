/// Splits text into the tokens `CONTAINS_ALL_TOKENS` and `CONTAINS_ANY_TOKENS` match: runs of
/// letters, digits and combining marks, compared without case — the characters storage's
/// full-text index (SQLite FTS5's `unicode61` tokenizer, which also ignores diacritics) keeps in
/// a token. Everything else separates tokens, so a token never holds a quote, an operator or
/// any other syntax of the full-text query language.
enum TextTokens {
    /// The tokens of `text`, lowercased, in order, duplicates kept.
    static func tokens(of text: String) -> [String] {
        var tokens: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isTokenScalar(scalar) {
                current.append(scalar)
            } else if !current.isEmpty {
                tokens.append(String(current).lowercased())
                current = String.UnicodeScalarView()
            }
        }
        if !current.isEmpty { tokens.append(String(current).lowercased()) }
        return tokens
    }

    /// Letters, numbers and marks: what `unicode61` keeps in tokens.
    static func isTokenScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber,
            .nonspacingMark, .spacingMark, .enclosingMark:
            true
        default:
            false
        }
    }
}
