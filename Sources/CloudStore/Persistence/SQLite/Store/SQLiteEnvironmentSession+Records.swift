extension SQLiteEnvironmentSession {
    // MARK: - Writing records

    func insert(_ record: Record, in zone: StoredZone) throws -> StoredRecord? {
        let type = try catalog.recordType(record.recordType)
        let size = RecordSize.of(record)
        var values: [SQLiteValue] = [
            .integer(zone.key), .text(record.recordName), .integer(type.id), .text(record.changeTag), .text(record.parent),
            .integer(record.created.timestamp), .text(record.created.userRecordName), .text(record.created.deviceID),
            .integer(record.modified.timestamp), .text(record.modified.userRecordName), .text(record.modified.deviceID),
            .integer(Int64(size)), .blob(RecordPayloadCodec.encode(record.fields)),
        ]
        appendProjectedValues(of: type, in: record.fields, to: &values)
        // The unique index on (zone, name) answers "does it exist?" as part of the insert.
        guard try insertUnlessTaken(type.insertSQL, values) else { return nil }
        let key = connection.lastInsertRowID
        count(zone: zone.key, type: type.id, records: 1, bytes: Int64(size))
        for field in type.listFields {
            try insertListElements(key: key, zoneKey: zone.key, field: field, fields: record.fields, type: type)
        }
        if !type.searchableFields.isEmpty {
            try insertSearchRow(key: key, fields: record.fields, type: type)
        }
        try insertReferences(key: key, zone: zone, record: record)
        try insertAssetReferences(key: key, fields: record.fields)
        return StoredRecord(key: key, record: record, size: size)
    }

    func update(_ stored: StoredRecord, to record: Record, in zone: StoredZone) throws -> StoredRecord {
        let type = try catalog.recordType(record.recordType)
        let size = RecordSize.of(record)
        var values: [SQLiteValue] = [
            .text(record.changeTag), .text(record.parent), .integer(record.modified.timestamp),
            .text(record.modified.userRecordName), .text(record.modified.deviceID), .integer(Int64(size)),
            .blob(RecordPayloadCodec.encode(record.fields)),
        ]
        appendProjectedValues(of: type, in: record.fields, to: &values, reservingOneMore: true)
        values.append(.integer(stored.key))
        try connection.statement(type.updateSQL).execute(values)
        count(zone: zone.key, type: type.id, records: 0, bytes: Int64(size - stored.size))
        let old = stored.record
        for field in type.listFields where old.fields[field.definition.name] != record.fields[field.definition.name] {
            try deleteListElements(key: stored.key, zoneKey: zone.key, field: field, fields: old.fields, type: type)
            try insertListElements(key: stored.key, zoneKey: zone.key, field: field, fields: record.fields, type: type)
        }
        let searchable = type.searchableFields
        if !searchable.isEmpty, searchable.contains(where: { old.fields[$0.definition.name] != record.fields[$0.definition.name] }) {
            try connection.statement("DELETE FROM \(type.searchTable) WHERE rowid = ?").execute([.integer(stored.key)])
            try insertSearchRow(key: stored.key, fields: record.fields, type: type)
        }
        if old.fields.values.contains(where: { !$0.assets.isEmpty }) || record.fields.values.contains(where: { !$0.assets.isEmpty }) {
            try deleteAssetReferences(key: stored.key)
            try insertAssetReferences(key: stored.key, fields: record.fields)
        }
        if !old.fields.values.allSatisfy({ $0.references.isEmpty }) {
            try deleteReferences(key: stored.key)
        }
        try insertReferences(key: stored.key, zone: zone, record: record)
        return StoredRecord(key: stored.key, record: record, size: size)
    }

    func delete(_ stored: StoredRecord, in zone: StoredZone) throws {
        let type = try catalog.recordType(stored.record.recordType)
        try connection.statement("DELETE FROM records WHERE rid = ?").execute([.integer(stored.key)])
        count(zone: zone.key, type: type.id, records: -1, bytes: -Int64(stored.size))
        for field in type.listFields {
            try deleteListElements(key: stored.key, zoneKey: zone.key, field: field, fields: stored.record.fields, type: type)
        }
        if !type.searchableFields.isEmpty {
            try connection.statement("DELETE FROM \(type.searchTable) WHERE rowid = ?").execute([.integer(stored.key)])
        }
        try deleteReferences(key: stored.key)
        if stored.record.fields.values.contains(where: { !$0.assets.isEmpty }) { try deleteAssetReferences(key: stored.key) }
    }

    /// Runs an insert; `false` when a unique index refused the row.
    private func insertUnlessTaken(_ sql: String, _ values: [SQLiteValue]) throws -> Bool {
        let statement = try connection.statement(sql)
        do {
            try statement.execute(values)
            return true
        } catch let error where error.isUniqueViolation {
            return false
        }
    }

    // MARK: - Projections

    /// Appends the slot values of every projected field of `type` for a record's fields, with
    /// room made once for them all (and for one value more, when asked).
    private func appendProjectedValues(
        of type: SchemaCatalog.RecordType, in fields: [String: FieldValue], to values: inout [SQLiteValue], reservingOneMore: Bool = false
    ) {
        values.reserveCapacity(values.count + 2 * type.projectedFields.count + (reservingOneMore ? 1 : 0))
        for field in type.projectedFields { appendProjectedValues(of: field, in: fields, to: &values) }
    }

    /// Appends the slot values of `field` for a record's fields: one column, or latitude and
    /// longitude; a list keeps its element count (its elements go to `rl_N`).
    func appendProjectedValues(of field: SchemaCatalog.Field, in fields: [String: FieldValue], to values: inout [SQLiteValue]) {
        let isLocation = field.definition.type == .location
        guard let value = fields[field.definition.name] else {
            values.append(.null)
            if isLocation { values.append(.null) }
            return
        }
        switch value {
        case .list(_, let elements): values.append(.integer(Int64(elements.count)))
        case .location(let location):
            values.append(.real(location.latitude))
            values.append(.real(location.longitude))
        default: values.append(Self.indexValue(value))
        }
    }

    /// How a scalar value is compared in indexes and list tables.
    static func indexValue(_ value: FieldValue) -> SQLiteValue {
        switch value {
        case .string(let string): .text(string)
        case .int64(let integer), .timestamp(let integer): .integer(integer)
        case .double(let double): .real(double)
        case .bytes(let bytes): .blob(bytes)
        case .reference(let reference): .text(reference.recordName)
        case .location, .asset, .list: .null
        }
    }

    private func listElements(of field: SchemaCatalog.Field, in fields: [String: FieldValue]) -> [SQLiteValue] {
        guard case .list(_, let elements) = fields[field.definition.name] else { return [] }
        return elements.map(Self.indexValue)
    }

    func insertListElements(
        key: Int64, zoneKey: Int64, field: SchemaCatalog.Field, fields: [String: FieldValue], type: SchemaCatalog.RecordType
    ) throws {
        let statement = try connection.statement(
            "INSERT OR IGNORE INTO \(type.listTable)(field, zone, value, rid) VALUES (?, ?, ?, ?)")
        for value in listElements(of: field, in: fields) {
            try statement.execute([.integer(field.id), .integer(zoneKey), value, .integer(key)])
        }
    }

    private func deleteListElements(
        key: Int64, zoneKey: Int64, field: SchemaCatalog.Field, fields: [String: FieldValue], type: SchemaCatalog.RecordType
    ) throws {
        let statement = try connection.statement(
            "DELETE FROM \(type.listTable) WHERE field = ? AND zone = ? AND value = ? AND rid = ?")
        for value in listElements(of: field, in: fields) {
            try statement.execute([.integer(field.id), .integer(zoneKey), value, .integer(key)])
        }
    }

    func insertSearchRow(key: Int64, fields values: [String: FieldValue], type: SchemaCatalog.RecordType) throws {
        var row: [SQLiteValue] = [.integer(key)]
        for field in type.searchableFields {
            switch values[field.definition.name] {
            case .string(let text):
                row.append(.text(text))
            case .list(_, let elements):
                // A string list is searched as one text whose lines are its elements.
                row.append(.text(elements.compactMap { if case .string(let text) = $0 { text } else { nil } }.joined(separator: "\n")))
            default:
                row.append(.null)
            }
        }
        try connection.statement(type.searchInsertSQL).execute(row)
    }

    // MARK: - References

    /// Records the DELETE_SELF and VALIDATE references `record` holds, so that deletes can find them.
    private func insertReferences(key: Int64, zone: StoredZone, record: Record) throws {
        var statement: SQLiteStatement?
        for value in record.fields.values {
            for reference in value.references where reference.action != .none {
                if statement == nil {
                    statement = try connection.statement(
                        "INSERT OR IGNORE INTO refs(source, target_zone, target, action) VALUES (?, ?, ?, ?)")
                }
                try statement?.execute([
                    .integer(key), .integer(zone.key), .text(reference.recordName),
                    .integer(StoredCodes.actionCode(reference.action)),
                ])
            }
        }
    }

    private func deleteReferences(key: Int64) throws {
        try connection.statement("DELETE FROM refs WHERE source = ?").execute([.integer(key)])
    }
}
