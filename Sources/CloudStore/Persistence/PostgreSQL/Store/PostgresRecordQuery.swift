/// Runs query plans against an environment's PostgreSQL schema and reads their rows.
enum PostgresRecordQuery {
    /// The rows `plan` selects, in its order, each with its sort values.
    /// - Parameter schema: the environment's PostgreSQL schema, unquoted.
    static func run(_ plan: QueryPlan, catalog: SchemaCatalog, on connection: PostgresConnection, schema: String) throws -> [QueryRow] {
        guard let type = catalog.types[plan.recordType], !plan.zones.isEmpty else { return [] }
        let statement = try PostgresQuerySQLBuilder(plan: plan, type: type, schema: schema).build()
        let zones = Dictionary(plan.zones.map { ($0.key, $0.zoneID) }, uniquingKeysWith: { first, _ in first })
        return try connection.execute(statement.sql, statement.parameters).map { row in
            let stored = try storedRecord(from: row, catalog: catalog, zoneID: zones[row.integer(13)] ?? plan.zones[0].zoneID)
            var sortValues: [SortKeyValue] = []
            sortValues.reserveCapacity(statement.sortKinds.count)
            for (index, kind) in statement.sortKinds.enumerated() {
                let column = 14 + index
                if row.isNull(column) {
                    sortValues.append(.null)
                } else {
                    switch kind {
                    case .integer: sortValues.append(.integer(row.integer(column)))
                    case .real: sortValues.append(.real(row.double(column)))
                    case .text: sortValues.append(.text(row.text(column)))
                    }
                }
            }
            return QueryRow(stored: stored, sortValues: sortValues)
        }
    }

    /// A stored record from the columns ``RecordColumns/selected`` names,
    /// starting at column `offset`.
    static func storedRecord(from row: PostgresRow, offset: Int = 0, catalog: SchemaCatalog, zoneID: ZoneID) throws -> StoredRecord {
        let record = Record(
            recordName: row.text(offset + 1), recordType: try catalog.typeName(row.integer(offset + 2)), zoneID: zoneID,
            fields: try RecordPayloadCodec.decode(row.blob(offset + 12)), parent: row.optionalText(offset + 4),
            changeTag: row.text(offset + 3),
            created: RecordStamp(
                timestamp: row.integer(offset + 5), userRecordName: row.text(offset + 6), deviceID: row.text(offset + 7)),
            modified: RecordStamp(
                timestamp: row.integer(offset + 8), userRecordName: row.text(offset + 9), deviceID: row.text(offset + 10)))
        return StoredRecord(key: row.integer(offset), record: record, size: Int(row.integer(offset + 11)))
    }
}
