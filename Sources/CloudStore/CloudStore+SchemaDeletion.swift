/// What deleting a field or a record type removes, counted before it is asked for.
public struct SchemaDeletionImpact: Hashable, Sendable {
    /// The record type.
    public var recordType: String
    /// The field, when a field is deleted; `nil` for the whole type.
    public var field: String?
    /// Records of the type, in every zone of every database.
    public var records: Int64
    /// Of those, the records holding a value in the field (0 for a whole type).
    public var values: Int64
}

extension CloudStore {
    /// What deleting `field` of `recordType` (or, with no field, the whole type) would remove
    /// from development: records of the type, values of the field. Changes nothing.
    /// - Throws: what the deletion itself would be refused with (production, a system field, an
    ///   unknown type or field).
    public func schemaDeletionImpact(
        field: String?, of recordType: String, in container: ContainerIdentifier, _ environment: Environment
    ) throws -> SchemaDeletionImpact {
        try requireContainer(container)
        return try self.environment(container, environment).read { reader in
            try Self.checkDeletable(field: field, of: recordType, environment: environment, schema: try reader.schema())
            return try Self.impact(field: field, of: recordType, reader: reader).impact
        }
    }

    /// Deletes a user field of a record type in development, as CloudKit allows there: the
    /// value is removed from every record holding one (each such record is saved again, so
    /// that devices syncing the zone learn of it), then the field and its indexes leave the
    /// schema. One transaction, audited.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` in production or for a system field;
    ///   ``CloudStoreError/notFound(_:)`` for an unknown type or field.
    @discardableResult
    public func deleteField(
        _ field: String, of recordType: String, in container: ContainerIdentifier, _ environment: Environment,
        by actor: OperatorIdentity? = nil
    ) throws -> SchemaDeletionImpact {
        try deleteFromSchema(field: field, of: recordType, in: container, environment, action: "schema.field.delete", by: actor) {
            writer, zone, stored, now in
            var record = stored.record
            record.fields[field] = nil
            record.changeTag = ChangeTag.make()
            record.modified = RecordStamp(timestamp: now, userRecordName: Caller.operatorRecordName, deviceID: "cumulus")
            try writer.keepVersion(
                of: stored, in: zone, replacedBy: VersionReplacement(kind: .updated, time: now, modifier: Caller.operatorRecordName))
            _ = try writer.update(stored, to: record, in: zone)
            try writer.appendChange(
                ChangeEntry(
                    recordName: record.recordName, recordType: recordType, kind: .updated, creator: record.created.userRecordName, time: now
                ),
                in: zone)
        } finish: { writer in
            try writer.removeField(named: field, from: recordType)
        }
    }

    /// Deletes a record type in development, as CloudKit allows there: every record of the
    /// type, in every zone of every database, is deleted (leaving tombstones for syncing
    /// devices), then the type with its fields, indexes and grants leaves the schema. One
    /// transaction, audited.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` in production or for `cloudkit.share`;
    ///   ``CloudStoreError/notFound(_:)`` for an unknown type.
    @discardableResult
    public func deleteRecordType(
        _ recordType: String, in container: ContainerIdentifier, _ environment: Environment, by actor: OperatorIdentity? = nil
    ) throws -> SchemaDeletionImpact {
        try deleteFromSchema(field: nil, of: recordType, in: container, environment, action: "schema.record-type.delete", by: actor) {
            writer, zone, stored, now in
            try writer.keepVersion(
                of: stored, in: zone, replacedBy: VersionReplacement(kind: .deleted, time: now, modifier: Caller.operatorRecordName))
            try writer.delete(stored, in: zone)
            try writer.appendChange(
                ChangeEntry(
                    recordName: stored.record.recordName, recordType: recordType, kind: .deleted,
                    creator: stored.record.created.userRecordName, time: now),
                in: zone)
        } finish: { writer in
            try writer.removeRecordType(named: recordType)
        }
    }

    /// Counts, changes each affected record with `change`, then changes the schema with
    /// `finish`, all in one schema transaction with its audit entry.
    private func deleteFromSchema(
        field: String?, of recordType: String, in container: ContainerIdentifier, _ environment: Environment, action: String,
        by actor: OperatorIdentity?,
        _ change: (any EnvironmentWriter, StoredZone, StoredRecord, Int64) throws -> Void,
        finish: (any EnvironmentWriter) throws -> Void
    ) throws -> SchemaDeletionImpact {
        try requireContainer(container)
        let now = self.now
        let auditor = self
        return try movingAuditOutbox(of: container, environment) {
            try self.environment(container, environment).writeSchema { writer in
                try Self.checkDeletable(field: field, of: recordType, environment: environment, schema: try writer.schema())
                let (impact, affected) = try Self.impact(field: field, of: recordType, reader: writer)
                for (zone, records) in affected {
                    for stored in records { try change(writer, zone, stored, now) }
                }
                try finish(writer)
                let target =
                    (field.map { "\(recordType).\($0)" } ?? recordType)
                    + " (\(impact.records) records\(field == nil ? "" : ", \(impact.values) values"))"
                try writer.record(auditor.auditNote(actor, action, container, environment, target: target))
                return impact
            }
        }
    }

    /// Refuses what may not be deleted: anything in production, system fields, the share type.
    private static func checkDeletable(field: String?, of recordType: String, environment: Environment, schema: Schema) throws {
        guard environment == .development else {
            throw CloudStoreError.badRequest(
                "The production schema is read-only: fields and types are deleted in development, where CloudKit allows it")
        }
        guard recordType != Share.recordType else { throw CloudStoreError.badRequest("The type \(Share.recordType) belongs to CloudKit") }
        guard let type = schema.recordType(recordType) else { throw CloudStoreError.notFound("Record type \(recordType) does not exist") }
        guard let field else { return }
        if SystemField(rawValue: field) != nil || field.hasPrefix("___") {
            throw CloudStoreError.badRequest("\(field) is a system field: every record has it, so it cannot be deleted")
        }
        guard type.field(field) != nil else { throw CloudStoreError.notFound("Record type \(recordType) has no field \(field)") }
    }

    /// The counts of a deletion, and the records it changes in each zone: every record of the
    /// type, or those holding a value in the field.
    private static func impact(field: String?, of recordType: String, reader: any EnvironmentReader) throws
        -> (impact: SchemaDeletionImpact, affected: [(StoredZone, [StoredRecord])])
    {
        var impact = SchemaDeletionImpact(recordType: recordType, field: field, records: 0, values: 0)
        var affected: [(StoredZone, [StoredRecord])] = []
        for stats in try reader.zoneStats() {
            var records: [StoredRecord] = []
            var after: String?
            while true {
                let page = try reader.records(
                    in: stats.zone, ofType: recordType, withinTrees: nil, after: after, limit: CloudDatabase.maximumListing)
                impact.records += Int64(page.count)
                records += field.map { field in page.filter { $0.record.fields[field] != nil } } ?? page
                guard page.count == CloudDatabase.maximumListing, let last = page.last else { break }
                after = last.record.recordName
            }
            impact.values += field == nil ? 0 : Int64(records.count)
            if !records.isEmpty { affected.append((stats.zone, records)) }
        }
        return (impact, affected)
    }
}
