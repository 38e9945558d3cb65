extension PostgresEnvironmentSession {
    // MARK: - Reading records

    func record(named name: String, in zone: StoredZone) throws -> StoredRecord? {
        // In a write the row is locked until commit: a save that checked its change tag must
        // not be overtaken by another process's save of the same record.
        let lock = transaction?.lockingClause ?? ""
        return try connection.execute(
            "SELECT \(RecordColumns.selected) FROM \(table("records")) r WHERE r.zone = $1 AND r.name = $2\(lock)",
            [.integer(zone.key), .text(name)]
        ).first { try PostgresRecordQuery.storedRecord(from: $0, catalog: catalog, zoneID: zone.zoneID) }
    }

    func lockRecords(named names: [String], in zone: StoredZone) throws {
        guard let transaction, names.count > 1 else { return }
        // Sorted before they are locked: rows are locked as the sort hands them out.
        try connection.execute(
            "SELECT 1 FROM \(table("records")) WHERE zone = $1 AND name = ANY($2::text[]) ORDER BY name\(transaction.lockingClause)",
            [.integer(zone.key), .textArray(names)])
    }

    func records(in zone: StoredZone, ofType recordType: String?, withinTrees roots: [String]?, after name: String?, limit: Int) throws
        -> [StoredRecord]
    {
        var sql = "SELECT \(RecordColumns.selected) FROM \(table("records")) r WHERE r.zone = $1"
        var values: [PostgresValue] = [.integer(zone.key)]
        if let roots {
            let (condition, parameters) = PostgresQuerySQLBuilder.withinTrees(
                roots, zone: zone.key, records: table("records"), first: values.count + 1)
            sql += " AND " + condition
            values += parameters
        }
        if let recordType {
            // A type the catalog does not know has no records.
            guard let type = catalog.types[recordType] else { return [] }
            values.append(.integer(type.id))
            sql += " AND r.type = $\(values.count)"
        }
        if let name {
            values.append(.text(name))
            sql += " AND r.name > $\(values.count)"
        }
        values.append(.integer(Int64(limit)))
        return try connection.execute(sql + " ORDER BY r.name LIMIT $\(values.count)", values).map {
            try PostgresRecordQuery.storedRecord(from: $0, catalog: catalog, zoneID: zone.zoneID)
        }
    }

    func referrers(to recordName: String, in zone: StoredZone, action: Reference.Action) throws -> [String] {
        try connection.execute(
            """
            SELECT r.name FROM \(table("refs")) f JOIN \(table("records")) r ON r.rid = f.source
            WHERE f.target_zone = $1 AND f.target = $2 AND f.action = $3 ORDER BY r.rid
            """,
            [.integer(zone.key), .text(recordName), .integer(StoredCodes.actionCode(action))]
        ).map { $0.text(0) }
    }

    // MARK: - Writing records

    func insert(_ record: Record, in zone: StoredZone) throws -> StoredRecord? {
        let type = try catalog.recordType(record.recordType)
        let size = RecordSize.of(record)
        let values: [PostgresValue] =
            [
                .integer(zone.key), .text(record.recordName), .integer(type.id), .text(record.changeTag), .text(record.parent),
                .integer(record.created.timestamp), .text(record.created.userRecordName), .text(record.created.deviceID),
                .integer(record.modified.timestamp), .text(record.modified.userRecordName), .text(record.modified.deviceID),
                .integer(size), .bytes(RecordPayloadCodec.encode(record.fields)),
            ] + PostgresProjections.slotValues(of: type, in: record.fields)
        // The unique index on (zone, name) answers "does it exist?" as part of the insert.
        guard let key = try connection.execute(type.insertSQL, values).scalarInteger() else { return nil }
        count(zone: zone.key, type: type.id, records: 1, bytes: Int64(size))
        try PostgresProjections.write(record: record, key: key, zone: zone.key, type: type, on: connection, schema: schemaName)
        return StoredRecord(key: key, record: record, size: size)
    }

    func update(_ stored: StoredRecord, to record: Record, in zone: StoredZone) throws -> StoredRecord {
        let type = try catalog.recordType(record.recordType)
        let size = RecordSize.of(record)
        let values: [PostgresValue] =
            [
                .text(record.changeTag), .text(record.parent), .integer(record.modified.timestamp),
                .text(record.modified.userRecordName), .text(record.modified.deviceID), .integer(size),
                .bytes(RecordPayloadCodec.encode(record.fields)),
            ] + PostgresProjections.slotValues(of: type, in: record.fields) + [.integer(stored.key)]
        try connection.execute(type.updateSQL, values)
        count(zone: zone.key, type: type.id, records: 0, bytes: Int64(size - stored.size))
        try PostgresProjections.replace(
            stored.record, with: record, key: stored.key, zone: zone.key, type: type, on: connection, schema: schemaName)
        return StoredRecord(key: stored.key, record: record, size: size)
    }

    func delete(_ stored: StoredRecord, in zone: StoredZone) throws {
        let type = try catalog.recordType(stored.record.recordType)
        try connection.execute("DELETE FROM \(table("records")) WHERE rid = $1", [.integer(stored.key)])
        count(zone: zone.key, type: type.id, records: -1, bytes: -Int64(stored.size))
        try PostgresProjections.delete(
            record: stored.record, key: stored.key, zone: zone.key, type: type, on: connection, schema: schemaName)
    }
}
