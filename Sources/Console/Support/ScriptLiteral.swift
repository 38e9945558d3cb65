import HTTPServer

/// Values written into an inline `<script>` as JavaScript string literals.
///
/// The output is a JSON string that can never end the script element or open a comment in it:
/// besides quotes, backslashes and control characters, `<`, `>`, `&`, `'` and the line
/// separators U+2028/U+2029 are written as `\uXXXX`. Templates insert it with `{{{…}}}`, the one
/// place they skip HTML escaping, which inside a script would corrupt the value instead.
enum ScriptLiteral {
    /// What a JSON string may hold as it is but a script must not: what could close the element
    /// or open a comment or markup, DEL, and the line separators older JavaScript rejects.
    private static let unsafeInScript: Set<Unicode.Scalar> = ["<", ">", "&", "'", "\u{7F}", "\u{2028}", "\u{2029}"]

    /// `text` as a quoted JavaScript string literal.
    static func string(_ text: String) -> String {
        JSONString.quote(text, alsoEscaping: unsafeInScript)
    }
}
