/// Values written into an inline `<script>` as JavaScript string literals.
///
/// The output is a JSON string that can never end the script element or open a comment in it:
/// besides quotes, backslashes and control characters, `<`, `>`, `&`, `'` and the line
/// separators U+2028/U+2029 are written as `\uXXXX`. Templates insert it with `{{{…}}}`, the one
/// place they skip HTML escaping, which inside a script would corrupt the value instead.
enum ScriptLiteral {
    /// `text` as a quoted JavaScript string literal.
    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "<", ">", "&", "'", "\u{2028}", "\u{2029}":
                out += escaped(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += escaped(scalar)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    private static func escaped(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16)
        return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
