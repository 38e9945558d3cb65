/// The PostgreSQL type of a column holding indexed values: slot columns of `records`, the
/// `value` of a list table. SQLite keeps any value in any column; PostgreSQL's columns have one
/// type each, so a slot column serves only fields whose values take its type.
enum PostgresColumnKind: String, Hashable, Sendable {
    /// Strings and reference names, compared by code point as SQLite's BINARY collation does.
    case text
    /// Integers and timestamps (milliseconds); a list's element count.
    case integer
    /// Doubles, and each half of a location.
    case real

    /// The column's type in `CREATE TABLE` and `ALTER TABLE`.
    var sqlType: String {
        switch self {
        case .text: "text COLLATE \"C\""
        case .integer: "bigint"
        case .real: "double precision"
        }
    }

    /// The kind `format_type` names, or `nil` for a type no slot column has.
    init?(formattedType: String) {
        switch formattedType {
        case "text": self = .text
        case "bigint": self = .integer
        case "double precision": self = .real
        default: return nil
        }
    }

    /// The kind of the slot columns of `field`: a list keeps its element count.
    static func slot(of field: FieldDefinition) -> PostgresColumnKind {
        field.type.isList ? .integer : element(of: field.type.scalar)
    }

    /// The kind of a value, or a list element, of scalar type `scalar`. A NUMBER field with no
    /// preference is a DOUBLE field, so its integers are kept as doubles.
    static func element(of scalar: ScalarType) -> PostgresColumnKind {
        switch scalar {
        case .string, .reference, .asset, .bytes: .text
        case .int64, .timestamp: .integer
        case .double, .location: .real
        }
    }

    /// The kind of the column holding a system field.
    static func system(_ field: SystemField) -> PostgresColumnKind {
        switch field {
        case .createTime, .modTime: .integer
        case .recordID, .createdBy, .modifiedBy, .etag: .text
        }
    }
}
