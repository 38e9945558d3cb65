/// A value bound to, or read from, an SQLite statement.
enum SQLiteValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    /// Text given as raw bytes, which need not be valid UTF-8: prefix-range bounds are.
    case textBytes([UInt8])
    case blob([UInt8])
}

extension SQLiteValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByNilLiteral {
    init(integerLiteral value: Int64) { self = .integer(value) }
    init(stringLiteral value: String) { self = .text(value) }
    init(nilLiteral: ()) { self = .null }
}

extension SQLiteValue {
    /// An integer column, or `nil` for NULL.
    static func integer(_ value: Int64?) -> SQLiteValue { value.map { .integer($0) } ?? .null }
    /// A text column, or `nil` for NULL.
    static func text(_ value: String?) -> SQLiteValue { value.map { .text($0) } ?? .null }
    /// A boolean as 0 or 1.
    static func bool(_ value: Bool) -> SQLiteValue { .integer(value ? 1 : 0) }
}

extension SQLiteValue {
    /// The placeholders for `count` values, separated by commas (`?, ?, ?`).
    static func placeholders(_ count: Int) -> String {
        var text = ""
        text.reserveCapacity(count * 3)
        for index in 0..<count { text += index == 0 ? "?" : ", ?" }
        return text
    }
}
