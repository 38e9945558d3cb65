import TestSupport
import Testing

@testable import CloudStore

/// Record types, fields and indexes changed one at a time, as the console does: development only,
/// and an index added over existing records serves queries at once.
@Suite struct SchemaEditingTests {
    /// The schema a request is decoded with is kept between requests; a change made by another
    /// process on the same directory (the command line) must show at the next request.
    @Test func aSchemaChangedByAnotherProcessShowsAtOnce() throws {
        let temporary = try TemporaryStore()
        let container = temporary.container
        let other = try temporary.anotherProcess()
        for _ in 0..<2 { #expect(try temporary.store.schema(container, .development).recordType("Late") == nil) }
        try other.createRecordType("Late", in: container, .development)
        let late = { try temporary.store.schema(container, .development).recordType("Late") }
        #expect(try TestBackend.afterAnotherProcessChanged(late, seen: { $0 != nil }) != nil)
        try other.addField(FieldDefinition(name: "when", type: .timestamp), to: "Late", in: container, .development)
        #expect(try TestBackend.afterAnotherProcessChanged(late, seen: { $0?.field("when") != nil })?.field("when")?.type == .timestamp)
        // And the other way round, on the store that cached it first.
        try temporary.store.createRecordType("Early", in: container, .development)
        #expect(
            try TestBackend.afterAnotherProcessChanged(
                { try other.schema(container, .development).recordType("Early") }, seen: { $0 != nil }) != nil)
    }

    @Test func typesFieldsAndIndexesChangeInDevelopmentOnly() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let container = temporary.container
        try store.createRecordType("Task", in: container, .development)
        #expect(try store.schema(container, .development).recordType("Task")?.grants == Grant.defaults)
        #expect(throws: CloudStoreError.exists("Record type Task already exists")) {
            try store.createRecordType("Task", in: container, .development)
        }
        #expect(throws: CloudStoreError.self) { try store.createRecordType("1Task", in: container, .development) }
        #expect(throws: CloudStoreError.self) { try store.createRecordType("Other", in: container, .production) }

        try store.addField(FieldDefinition(name: "title", type: .string), to: "Task", in: container, .development)
        #expect(throws: CloudStoreError.self) {
            try store.addField(FieldDefinition(name: "title", type: .int64), to: "Task", in: container, .development)
        }
        #expect(throws: CloudStoreError.self) {
            try store.addField(FieldDefinition(name: "data", type: .bytes, indexes: [.queryable]), to: "Task", in: container, .development)
        }
        #expect(throws: CloudStoreError.self) {
            try store.addField(FieldDefinition(name: "___etag", type: .string), to: "Task", in: container, .development)
        }

        let database = try temporary.database()
        _ = try database.modify(
            ModifyRequest(operations: [
                RecordOperation(.create, recordName: "t1", recordType: "Task", fields: ["title": .string("write tests")])
            ]))
        let query = QueryRequest(query: Query(recordType: "Task", filters: [QueryFilter(.field("title"), .equals, .string("write tests"))]))
        #expect(throws: CloudStoreError.missingIndex(MissingIndex(recordType: "Task", field: "title", index: .queryable))) {
            try database.query(query)
        }
        try store.setIndexes([.queryable, .searchable], of: "title", recordType: "Task", in: container, .development)
        #expect(try database.query(query).records.map(\.recordName) == ["t1"])
        try store.setIndexes([.sortable], of: "___createTime", recordType: "Task", in: container, .development)
        #expect(try store.schema(container, .development).recordType("Task")?.field(.createTime).indexes == [.sortable])
        #expect(throws: CloudStoreError.notFound("Record type Task has no field nope")) {
            try store.setIndexes([], of: "nope", recordType: "Task", in: container, .development)
        }
        #expect(throws: CloudStoreError.self) {
            try store.setIndexes([.searchable], of: "___createTime", recordType: "Task", in: container, .development)
        }
        #expect(throws: CloudStoreError.self) { try store.setIndexes([], of: "title", recordType: "Task", in: container, .production) }
    }
}
