/// A value bound to a statement's parameter.
///
/// Numbers, texts and booleans travel in PostgreSQL's text format, so that the server reads them
/// as whatever type the statement needs; bytes travel in the binary format, unescaped.
enum PostgresValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case double(Double)
    case text(String)
    case bytes([UInt8])
    case bool(Bool)
    /// A `bigint[]`, for `unnest` of many rows in one statement.
    case integerArray([Int64])
    /// A `text[]` whose elements may be NULL.
    case textArray([String?])
}

extension PostgresValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByNilLiteral {
    init(integerLiteral value: Int64) { self = .integer(value) }
    init(stringLiteral value: String) { self = .text(value) }
    init(nilLiteral: ()) { self = .null }
}

extension PostgresValue {
    /// An optional text, `NULL` when absent.
    static func text(_ value: String?) -> PostgresValue { value.map { .text($0) } ?? .null }
    /// An optional integer, `NULL` when absent.
    static func integer(_ value: Int64?) -> PostgresValue { value.map { .integer($0) } ?? .null }
    /// An integer of any width.
    static func integer(_ value: Int) -> PostgresValue { .integer(Int64(value)) }

    /// The value in PostgreSQL's text format; `nil` for NULL and for bytes, which travel as binary.
    var textFormat: String? {
        switch self {
        case .null, .bytes: nil
        case .integer(let number): String(number)
        case .double(let number): "\(number)"
        case .text(let text): text
        case .bool(let flag): flag ? "t" : "f"
        case .integerArray(let numbers): "{" + numbers.map(String.init).joined(separator: ",") + "}"
        case .textArray(let texts): "{" + texts.map(Self.arrayElement).joined(separator: ",") + "}"
        }
    }

    /// `{…}` holding `values` in the text format, each element quoted: a whole list bound as one
    /// parameter of any array type.
    static func arrayLiteral(_ values: [PostgresValue]) -> String {
        "{" + values.map { arrayElement($0.textFormat) }.joined(separator: ",") + "}"
    }

    /// An element of an array literal: quoted, with quotes and backslashes escaped, so that no
    /// text (`NULL`, commas, braces) is read as anything but itself.
    private static func arrayElement(_ text: String?) -> String {
        guard let text else { return "NULL" }
        var quoted = "\""
        for character in text.unicodeScalars {
            if character == "\"" || character == "\\" { quoted.unicodeScalars.append("\\") }
            quoted.unicodeScalars.append(character)
        }
        return quoted + "\""
    }
}
