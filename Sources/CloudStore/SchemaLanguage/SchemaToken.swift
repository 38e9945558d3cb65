/// A place in schema text: 1-based line and column, columns counted in Unicode scalars.
struct SchemaPosition: Hashable, Sendable, CustomStringConvertible {
    var line: Int
    var column: Int

    var description: String { "line \(line), column \(column)" }
}

/// One token of the schema language, as the lexer hands it to the parser.
struct SchemaToken: Hashable, Sendable {
    enum Kind: Hashable, Sendable {
        /// A bare word, `[A-Za-z][A-Za-z0-9_]*`: a keyword or a name, depending on where it stands.
        case word(String)
        /// A double-quoted name, escapes resolved. Never a keyword.
        case quoted(String)
        /// One of `( ) , ; < >`.
        case symbol(Unicode.Scalar)
        /// Anything the language has no use for: a stray character, or a word that starts with
        /// a digit or an underscore. Kept as a token so the parser can say what it expected
        /// there instead of the lexer failing with less context.
        case unexpected(String)
        /// The end of the text.
        case end
    }

    var kind: Kind
    var position: SchemaPosition

    /// Whether this is the keyword `keyword`, in any letter case.
    func `is`(_ keyword: SchemaKeyword) -> Bool {
        if case .word(let text) = kind { return SchemaKeyword(spelling: text) == keyword }
        return false
    }

    /// Whether this is the punctuation `symbol`.
    func `is`(_ symbol: Unicode.Scalar) -> Bool { kind == .symbol(symbol) }

    /// The token as error messages show it after "Encountered".
    var displayed: String {
        switch kind {
        case .word(let text), .unexpected(let text): "\"\(text)\""
        case .quoted(let name): "quoted name \(SchemaExporter.quote(name))"
        case .symbol(let scalar): "\"\(scalar)\""
        case .end: "end of input"
        }
    }
}
