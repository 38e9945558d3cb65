import Mustache

/// The escaping of every value a page shows, done by us rather than by the template engine:
/// byte by byte over UTF-8, so `&`, `<`, `>`, `"` and `'` become entities wherever they are.
///
/// swift-mustache escapes per `Character` (grapheme cluster), and a quote followed by a
/// combining mark (`"` + U+0301) is one cluster that is not a quote, so it went out raw and
/// ended an attribute value in the browser, which tokenizes by code point (security review N4).
/// Every template is therefore rendered with this content type, whatever the engine's own is.
enum HTMLEscaping {
    /// The content type's name in the `CONTENT_TYPE` pragma every loaded template starts with.
    static let contentTypeName = "CUMULUS_HTML"
    /// What ``TemplateRenderer`` puts before each template's text. Alone on its line, it leaves
    /// no newline in the output and keeps the standalone-tag rules of the first line as they were.
    static let pragma = "{{% CONTENT_TYPE: \(contentTypeName)}}\n"

    /// `text` with `&`, `<`, `>`, `"` and `'` written as entities, wherever they stand: a
    /// combining mark after one changes nothing, as every UTF-8 byte is looked at on its own.
    static func escape(_ text: String) -> String {
        let utf8 = text.utf8
        guard utf8.contains(where: needsEscaping) else { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count + 16)
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "&"): bytes += "&amp;".utf8
            case UInt8(ascii: "<"): bytes += "&lt;".utf8
            case UInt8(ascii: ">"): bytes += "&gt;".utf8
            case UInt8(ascii: "\""): bytes += "&quot;".utf8
            case UInt8(ascii: "'"): bytes += "&#39;".utf8
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func needsEscaping(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "\"")
            || byte == UInt8(ascii: "'")
    }

    /// Registers the content type with swift-mustache, once, before any template is parsed (the
    /// pragma names a registered type, looked up at parse time).
    static let registered: Void = MustacheContentTypes.register(ContentType(), named: contentTypeName)

    /// `{{value}}` in a page: ``escape(_:)``.
    struct ContentType: MustacheContentType {
        func escapeText(_ text: String) -> String { HTMLEscaping.escape(text) }
    }
}
