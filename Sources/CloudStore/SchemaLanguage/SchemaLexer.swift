/// Splits schema text into tokens, dropping white space and comments (`// …`, `-- …`, `/* … */`).
///
/// Works over Unicode scalars so that every column is counted the same way whatever the text
/// holds. `\n`, `\r\n` and a lone `\r` each end a line.
struct SchemaLexer {
    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var line = 1
    private var column = 1

    init(_ text: String) {
        // Some editors start UTF-8 files with a byte order mark; it is not part of the text.
        var scalars = Array(text.unicodeScalars)
        if scalars.first == "\u{FEFF}" { scalars.removeFirst() }
        self.scalars = scalars
    }

    /// All tokens of the text, ending with one `.end` token.
    /// - Throws: ``SchemaParseError`` for a quoted name or block comment that is never closed.
    static func tokenize(_ text: String) throws(SchemaParseError) -> [SchemaToken] {
        var lexer = SchemaLexer(text)
        var tokens: [SchemaToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    // MARK: - Tokens

    private mutating func next() throws(SchemaParseError) -> SchemaToken {
        try skipSpaceAndComments()
        let start = position
        guard let scalar = peek() else { return SchemaToken(kind: .end, position: start) }

        if Self.isWordCharacter(scalar) {
            var text = ""
            while let next = peek(), Self.isWordCharacter(next) {
                text.unicodeScalars.append(next)
                advance()
            }
            // A word must start with a letter; `_world` or `1st` bare are errors the parser reports.
            let kind: SchemaToken.Kind = Self.isLetter(scalar) ? .word(text) : .unexpected(text)
            return SchemaToken(kind: kind, position: start)
        }
        if scalar == "\"" {
            return SchemaToken(kind: .quoted(try quotedName(startingAt: start)), position: start)
        }
        advance()
        if "(),;<>".unicodeScalars.contains(scalar) {
            return SchemaToken(kind: .symbol(scalar), position: start)
        }
        return SchemaToken(kind: .unexpected(String(Character(scalar))), position: start)
    }

    /// Reads a double-quoted name; the opening quote is the current scalar. A backslash takes
    /// the next scalar literally, so `\"` and `\\` can appear in a name.
    private mutating func quotedName(startingAt start: SchemaPosition) throws(SchemaParseError) -> String {
        advance()
        var name = ""
        while let scalar = peek() {
            // A name never spans lines: stopping at the line end points the error at the
            // opening quote instead of swallowing the rest of the file.
            if scalar == "\n" || scalar == "\r" { break }
            advance()
            if scalar == "\"" { return name }
            if scalar == "\\", let escaped = peek(), escaped != "\n", escaped != "\r" {
                advance()
                name.unicodeScalars.append(escaped)
            } else {
                name.unicodeScalars.append(scalar)
            }
        }
        throw SchemaParseError(
            code: .syntax, line: start.line, column: start.column,
            message: "Unterminated quoted name at \(start): the closing \" is missing before the end of the line."
        )
    }

    // MARK: - Space and comments

    private mutating func skipSpaceAndComments() throws(SchemaParseError) {
        while let scalar = peek() {
            if scalar.properties.isWhitespace {
                advance()
            } else if (scalar == "/" && peek(1) == "/") || (scalar == "-" && peek(1) == "-") {
                while let next = peek(), next != "\n", next != "\r" { advance() }
            } else if scalar == "/" && peek(1) == "*" {
                let start = position
                advance(2)
                while peek() != nil, !(peek() == "*" && peek(1) == "/") { advance() }
                guard peek() != nil else {
                    throw SchemaParseError(
                        code: .syntax, line: start.line, column: start.column,
                        message: "Unterminated comment at \(start): the \"/*\" is never closed by \"*/\"."
                    )
                }
                advance(2)
            } else {
                return
            }
        }
    }

    // MARK: - Scalars

    private var position: SchemaPosition { SchemaPosition(line: line, column: column) }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    private mutating func advance(_ count: Int = 1) {
        for _ in 0..<count {
            guard let scalar = peek() else { return }
            index += 1
            if scalar == "\n" || (scalar == "\r" && peek() != "\n") {
                line += 1
                column = 1
            } else if scalar != "\r" {
                column += 1
            }
        }
    }

    private static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }

    private static func isWordCharacter(_ scalar: Unicode.Scalar) -> Bool {
        isLetter(scalar) || ("0"..."9").contains(scalar) || scalar == "_"
    }
}
