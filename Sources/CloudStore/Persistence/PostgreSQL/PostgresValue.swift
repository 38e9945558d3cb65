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
}
