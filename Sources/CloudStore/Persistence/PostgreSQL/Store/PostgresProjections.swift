import Foundation

/// What is kept beside a record's row in an environment's PostgreSQL schema so that queries and
/// deletes find it: slot values in `records`, list elements in `rl_<type>_<field>`, words in
/// `fts_<type>`, references in `refs` and the asset blobs it holds in `asset_refs`.
///
/// The record's own row is the caller's: insert it with ``SchemaCatalog/RecordType/insertSQL``
/// and the values ``slotValues(of:in:)`` appends (or update it with `updateSQL`), then call
/// ``write(record:key:zone:type:on:schema:slots:)``; on delete, call
/// ``delete(record:key:zone:type:on:schema:)`` with the row's key.
enum PostgresProjections {
    // MARK: - Writing

    /// Writes every projection of `record`, stored under `key` in `zone`, as `type` asks for.
    /// - Parameters:
    ///   - slots: whether to write the slot columns too, for a row inserted without them.
    ///   - schema: the environment's PostgreSQL schema, unquoted.
    static func write(
        record: Record, key: Int64, zone: Int64, type: SchemaCatalog.RecordType, on connection: PostgresConnection, schema: String,
        slots: Bool = false
    ) throws {
        let quoted = PostgresIdentifier.quote(schema)
        if slots { try writeSlots(of: type.projectedFields, in: record.fields, key: key, on: connection, schema: quoted) }
        for field in type.listFields {
            try insertListElements(key: key, zone: zone, field: field, fields: record.fields, type: type, on: connection, schema: quoted)
        }
        try insertSearchRows(key: key, fields: record.fields, type: type, searchable: type.searchableFields, on: connection)
        try insertReferences(key: key, zone: zone, record: record, on: connection, schema: quoted)
        try insertAssetReferences(key: key, fields: record.fields, on: connection, schema: quoted)
    }

    /// Brings the projections of the record under `key` from `old` to `record`, rewriting only
    /// what changed. The slot columns are written by the caller's `updateSQL`, unless `slots`.
    static func replace(
        _ old: Record, with record: Record, key: Int64, zone: Int64, type: SchemaCatalog.RecordType, on connection: PostgresConnection,
        schema: String, slots: Bool = false
    ) throws {
        let quoted = PostgresIdentifier.quote(schema)
        if slots { try writeSlots(of: type.projectedFields, in: record.fields, key: key, on: connection, schema: quoted) }
        for field in type.listFields where old.fields[field.definition.name] != record.fields[field.definition.name] {
            try deleteListElements(key: key, field: field, type: type, on: connection, schema: quoted)
            try insertListElements(key: key, zone: zone, field: field, fields: record.fields, type: type, on: connection, schema: quoted)
        }
        let searchable = type.searchableFields
        if !searchable.isEmpty, searchable.contains(where: { old.fields[$0.definition.name] != record.fields[$0.definition.name] }) {
            try connection.execute("DELETE FROM \(quoted).\(searchTable(type)) WHERE rid = $1", [.integer(key)])
            try insertSearchRows(key: key, fields: record.fields, type: type, searchable: searchable, on: connection)
        }
        if old.fields.values.contains(where: { !$0.assets.isEmpty }) || record.fields.values.contains(where: { !$0.assets.isEmpty }) {
            try connection.execute("DELETE FROM \(quoted).asset_refs WHERE rid = $1", [.integer(key)])
            try insertAssetReferences(key: key, fields: record.fields, on: connection, schema: quoted)
        }
        if !old.fields.values.allSatisfy({ $0.references.isEmpty }) {
            try connection.execute("DELETE FROM \(quoted).refs WHERE source = $1", [.integer(key)])
        }
        try insertReferences(key: key, zone: zone, record: record, on: connection, schema: quoted)
    }

    /// Removes every projection of `record`, stored under `key`, whose row is being deleted.
    static func delete(
        record: Record, key: Int64, zone: Int64, type: SchemaCatalog.RecordType, on connection: PostgresConnection, schema: String
    ) throws {
        let quoted = PostgresIdentifier.quote(schema)
        for field in type.listFields {
            try deleteListElements(key: key, field: field, type: type, on: connection, schema: quoted)
        }
        if !type.searchableFields.isEmpty {
            try connection.execute("DELETE FROM \(quoted).\(searchTable(type)) WHERE rid = $1", [.integer(key)])
        }
        try connection.execute("DELETE FROM \(quoted).refs WHERE source = $1", [.integer(key)])
        if record.fields.values.contains(where: { !$0.assets.isEmpty }) {
            try connection.execute("DELETE FROM \(quoted).asset_refs WHERE rid = $1", [.integer(key)])
        }
    }

    // MARK: - Tables

    /// The table holding the elements of list field `field` of `type`.
    static func listTable(_ type: SchemaCatalog.RecordType, _ field: SchemaCatalog.Field) -> String {
        "rl_\(type.id)_\(field.id)"
    }

    /// The table holding the words of `type`'s searchable fields, a row per record and field.
    static func searchTable(_ type: SchemaCatalog.RecordType) -> String { "fts_\(type.id)" }

    // MARK: - Slots

    /// The slot values of every projected field of `type` for a record's fields, in the order
    /// of the slot columns `insertSQL` and `updateSQL` name after the record's own.
    static func slotValues(of type: SchemaCatalog.RecordType, in fields: [String: FieldValue]) -> [PostgresValue] {
        var values: [PostgresValue] = []
        values.reserveCapacity(2 * type.projectedFields.count)
        for field in type.projectedFields { appendSlotValues(of: field, in: fields, to: &values) }
        return values
    }

    /// Appends the slot values of `field` for a record's fields: one column, or latitude and
    /// longitude; a list keeps its element count (its elements go to its list table).
    static func appendSlotValues(of field: SchemaCatalog.Field, in fields: [String: FieldValue], to values: inout [PostgresValue]) {
        let isLocation = field.definition.type == .location
        guard let value = fields[field.definition.name] else {
            values.append(.null)
            if isLocation { values.append(.null) }
            return
        }
        switch value {
        case .list(_, let elements): values.append(.integer(Int64(elements.count)))
        case .location(let location):
            values.append(.double(location.latitude))
            values.append(.double(location.longitude))
        default: values.append(indexValue(value, as: PostgresColumnKind.slot(of: field.definition)))
        }
    }

    /// Writes the slot columns of `projected` for the record under `key` (`schema` quoted).
    static func writeSlots(
        of projected: [SchemaCatalog.Field], in fields: [String: FieldValue], key: Int64, on connection: PostgresConnection, schema: String
    ) throws {
        guard !projected.isEmpty else { return }
        var values: [PostgresValue] = []
        for field in projected { appendSlotValues(of: field, in: fields, to: &values) }
        let assignments = projected.flatMap(\.columns).enumerated().map { "\($1) = $\($0 + 1)" }.joined(separator: ", ")
        values.append(.integer(key))
        try connection.execute("UPDATE \(schema).records SET \(assignments) WHERE rid = $\(values.count)", values)
    }

    /// How a scalar value is compared in slot columns and list tables whose values are of `kind`:
    /// a DOUBLE column's integers (a NUMBER field with no preference) are kept as doubles.
    static func indexValue(_ value: FieldValue, as kind: PostgresColumnKind) -> PostgresValue {
        switch value {
        case .string(let string): .text(string)
        case .int64(let integer), .timestamp(let integer): kind == .real ? .double(Double(integer)) : .integer(integer)
        case .double(let double): .double(double)
        case .reference(let reference): .text(reference.recordName)
        case .bytes, .location, .asset, .list: .null
        }
    }

    // MARK: - List elements

    /// The distinct elements of a list field's value, as its list table compares them.
    static func listElements(of field: SchemaCatalog.Field, in fields: [String: FieldValue]) -> [PostgresValue] {
        guard case .list(let scalar, let elements) = fields[field.definition.name] else { return [] }
        let kind = PostgresColumnKind.element(of: scalar)
        var seen: Set<PostgresValue> = []
        return elements.map { indexValue($0, as: kind) }.filter { $0 != .null && seen.insert($0).inserted }
    }

    /// Writes the elements of list field `field` for the record under `key` (`schema` quoted).
    static func insertListElements(
        key: Int64, zone: Int64, field: SchemaCatalog.Field, fields: [String: FieldValue], type: SchemaCatalog.RecordType,
        on connection: PostgresConnection, schema: String
    ) throws {
        let elements = listElements(of: field, in: fields)
        guard !elements.isEmpty else { return }
        let kind = PostgresColumnKind.element(of: field.definition.type.scalar)
        // One statement per field: the elements travel as one array.
        try connection.execute(
            """
            INSERT INTO \(schema).\(listTable(type, field))(zone, value, rid) \
            SELECT $1, v, $3 FROM unnest($2::\(arrayType(kind))) v ON CONFLICT DO NOTHING
            """,
            [.integer(zone), .text(PostgresValue.arrayLiteral(elements)), .integer(key)])
    }

    private static func deleteListElements(
        key: Int64, field: SchemaCatalog.Field, type: SchemaCatalog.RecordType, on connection: PostgresConnection, schema: String
    ) throws {
        try connection.execute("DELETE FROM \(schema).\(listTable(type, field)) WHERE rid = $1", [.integer(key)])
    }

    /// The array type of list elements of `kind`, for casting a parameter.
    static func arrayType(_ kind: PostgresColumnKind) -> String {
        switch kind {
        case .text: "text[]"
        case .integer: "bigint[]"
        case .real: "double precision[]"
        }
    }

    // MARK: - Words

    /// Writes the search rows of `searchable` (fields of `type`) for the record under `key`:
    /// one per field that holds words.
    static func insertSearchRows(
        key: Int64, fields values: [String: FieldValue], type: SchemaCatalog.RecordType, searchable: [SchemaCatalog.Field],
        on connection: PostgresConnection
    ) throws {
        for field in searchable {
            guard let words = searchWords(of: field, in: values) else { continue }
            try connection.execute(type.searchInsertSQL, [.integer(key), .integer(field.id), .text(words)])
        }
    }

    /// The folded words of searchable field `field` in a record's fields, separated by spaces;
    /// `nil` when it holds none.
    static func searchWords(of field: SchemaCatalog.Field, in values: [String: FieldValue]) -> String? {
        let text: String
        switch values[field.definition.name] {
        case .string(let string):
            text = string
        case .list(_, let elements):
            // A string list is searched as one text whose lines are its elements.
            text = elements.compactMap { if case .string(let text) = $0 { text } else { nil } }.joined(separator: "\n")
        default:
            return nil
        }
        let words = SearchWords.words(of: text)
        return words.isEmpty ? nil : words.joined(separator: " ")
    }

    // MARK: - References and assets

    /// Records the DELETE_SELF and VALIDATE references `record` holds, so that deletes can find them.
    private static func insertReferences(key: Int64, zone: Int64, record: Record, on connection: PostgresConnection, schema: String) throws
    {
        for value in record.fields.values {
            for reference in value.references where reference.action != .none {
                try connection.execute(
                    "INSERT INTO \(schema).refs(source, target_zone, target, action) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
                    [.integer(key), .integer(zone), .text(reference.recordName), .integer(StoredCodes.actionCode(reference.action))])
            }
        }
    }

    /// Records which blobs the record under `key` holds.
    private static func insertAssetReferences(key: Int64, fields: [String: FieldValue], on connection: PostgresConnection, schema: String)
        throws
    {
        for sha in HistoryAssetRows.hashes(of: fields) {
            try connection.execute(
                "INSERT INTO \(schema).asset_refs(rid, sha) VALUES ($1, $2) ON CONFLICT DO NOTHING", [.integer(key), .text(sha)])
        }
    }
}

/// The words a searchable text is found by on PostgreSQL, as SQLite's FTS5 `unicode61`
/// tokenizer with `remove_diacritics 2` makes them: runs of letters, digits and marks
/// (``TextTokens``), lowercased, without diacritics, so that "Café" is found by "cafe".
enum SearchWords {
    /// The longest word a `tsvector` keeps (its limit is 2,047 bytes): a longer one is left out
    /// of documents, and a search for it finds nothing.
    static let maximumBytes = 2_046

    /// The folded words of `text`, in order, duplicates kept, none empty or too long.
    static func words(of text: String) -> [String] {
        TextTokens.tokens(of: text).map(fold).filter { !$0.isEmpty && $0.utf8.count <= maximumBytes }
    }

    /// A token without case or diacritics.
    static func fold(_ token: String) -> String {
        token.folding(options: [.diacriticInsensitive], locale: nil).lowercased()
    }

    /// A `tsquery` matching documents holding every (`all`) or any of the words of `text`;
    /// `nil` when it can match nothing. Each word is a quoted lexeme, so no input reaches the
    /// query syntax.
    static func query(_ text: String, all: Bool) -> String? {
        let tokens = TextTokens.tokens(of: text).map(fold).filter { !$0.isEmpty }
        let kept = tokens.filter { $0.utf8.count <= maximumBytes }
        if kept.isEmpty || (all && kept.count < tokens.count) { return nil }
        let lexemes = kept.map { "'" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "''") + "'" }
        return lexemes.joined(separator: all ? " & " : " | ")
    }
}
