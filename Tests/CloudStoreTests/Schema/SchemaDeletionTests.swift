import TestSupport
import Testing

@testable import CloudStore

/// Fields and record types deleted in development, as CloudKit allows there: counted first,
/// their values and records removed, refused in production and for system fields.
@Suite struct SchemaDeletionTests {
    /// Two notes hold a title, one does not; a photo has none of it.
    private func seeded() throws -> TemporaryStore {
        let temporary = try TemporaryStore()
        _ = try temporary.database().modify(
            ModifyRequest(operations: [
                RecordOperation(.create, recordName: "n1", recordType: "Note", fields: ["title": .string("a"), "n": .int64(1)]),
                RecordOperation(.create, recordName: "n2", recordType: "Note", fields: ["title": .string("b")]),
                RecordOperation(.create, recordName: "n3", recordType: "Note", fields: ["n": .int64(3)]),
                RecordOperation(.create, recordName: "p1", recordType: "Photo", fields: ["n": .int64(1)]),
            ]))
        return temporary
    }

    @Test func aFieldIsCountedThenDeletedWithItsValues() throws {
        let temporary = try seeded()
        let (store, container) = (temporary.store, temporary.container)
        try store.setIndexes([.queryable, .searchable], of: "title", recordType: "Note", in: container, .development)
        let counted = try store.schemaDeletionImpact(field: "title", of: "Note", in: container, .development)
        #expect(counted == SchemaDeletionImpact(recordType: "Note", field: "title", records: 3, values: 2))
        // Counting changed nothing.
        #expect(try store.schema(container, .development).recordType("Note")?.field("title") != nil)

        let database = try temporary.database()
        let before = try database.lookup([RecordLookup("n1")])[0].record?.changeTag
        #expect(try store.deleteField("title", of: "Note", in: container, .development, by: .local) == counted)
        #expect(try store.schema(container, .development).recordType("Note")?.field("title") == nil)
        let n1 = try database.lookup([RecordLookup("n1")])[0].record
        #expect(n1?.fields["title"] == nil)
        #expect(n1?.fields["n"] == .int64(1))
        #expect(n1?.changeTag != before)
        // The field's name is free again, for another type even.
        try store.addField(FieldDefinition(name: "title", type: .int64), to: "Note", in: container, .development)
        #expect(try store.schema(container, .development).recordType("Note")?.field("title")?.type == .int64)
        let audit = try store.auditEntries(AuditFilter(action: "schema.field.delete")).map(\.target)
        #expect(audit == ["Note.title (3 records, 2 values)"])
    }

    @Test func aTypeIsDeletedWithItsRecords() throws {
        let temporary = try seeded()
        let (store, container) = (temporary.store, temporary.container)
        try store.setIndexes([.queryable], of: "___recordID", recordType: "Note", in: container, .development)
        #expect(
            try store.deleteRecordType("Note", in: container, .development, by: .local)
                == SchemaDeletionImpact(recordType: "Note", field: nil, records: 3, values: 0))
        #expect(try store.schema(container, .development).recordType("Note") == nil)
        let database = try temporary.database()
        #expect(try database.lookup([RecordLookup("n1")])[0].record == nil)
        #expect(try database.lookup([RecordLookup("p1")])[0].record != nil)
        #expect(try database.recordCounts()["Note"] == nil)
        // A record of the name made again makes the type again, just in time.
        _ = try database.modify(
            ModifyRequest(operations: [RecordOperation(.create, recordName: "n9", recordType: "Note", fields: ["other": .string("x")])]))
        #expect(try store.schema(container, .development).recordType("Note")?.field("other") != nil)
        #expect(
            try database.listRecords(zoneName: ZoneID.defaultZoneName, recordType: "Note", limit: 10).records.map(\.recordName) == ["n9"])
    }

    @Test func productionSystemFieldsAndTheShareTypeAreRefused() throws {
        let temporary = try seeded()
        let (store, container) = (temporary.store, temporary.container)
        #expect(throws: CloudStoreError.self) { try store.deleteField("title", of: "Note", in: container, .production) }
        #expect(throws: CloudStoreError.self) { try store.deleteRecordType("Note", in: container, .production) }
        #expect(throws: CloudStoreError.self) { try store.schemaDeletionImpact(field: nil, of: "Note", in: container, .production) }
        #expect(throws: CloudStoreError.self) { try store.deleteField("___createTime", of: "Note", in: container, .development) }
        #expect(throws: CloudStoreError.notFound("Record type Note has no field nope")) {
            try store.deleteField("nope", of: "Note", in: container, .development)
        }
        #expect(throws: CloudStoreError.self) { try store.deleteRecordType(Share.recordType, in: container, .development) }
        #expect(try store.schema(container, .development).recordType("Note")?.field("title") != nil)
    }

    /// What the page offers is what a change accepts: one rule.
    @Test func allowedIndexesFollowTheFieldType() throws {
        #expect(IndexKind.allowed(on: .string) == [.queryable, .searchable, .sortable])
        #expect(IndexKind.allowed(on: .timestamp) == [.queryable, .sortable])
        #expect(IndexKind.allowed(on: .double) == [.queryable, .sortable])
        #expect(IndexKind.allowed(on: .bytes).isEmpty)
        #expect(IndexKind.allowed(on: .asset).isEmpty)
        #expect(IndexKind.allowed(on: .list(.location)).isEmpty)
        let temporary = try seeded()
        #expect(throws: CloudStoreError.self) {
            try temporary.store.setIndexes(["n": [.searchable]], recordType: "Note", in: temporary.container, .development)
        }
        try temporary.store.setIndexes(
            ["n": [.queryable, .sortable], "title": [.searchable]], recordType: "Note", in: temporary.container, .development)
        let note = try temporary.store.schema(temporary.container, .development).recordType("Note")
        #expect(note?.field("n")?.indexes == [.queryable, .sortable])
        #expect(note?.field("title")?.indexes == [.searchable])
    }
}
