import TestSupport
import Testing

@testable import CloudStore

@Suite struct SchemaRulesTests {
    @Test func developmentCreatesTypesAndFieldsJustInTimeWithDefaultGrants() throws {
        let store = try TemporaryStore()
        let database = try store.database(.development)
        try database.create("Note", "n1", ["title": .string("a"), "tags": .list(.string, [.string("x")])])
        try database.create("Note", "n2", ["count": .int64(2)])
        let schema = try store.store.schema(store.container, .development)
        let note = try #require(schema.recordType("Note"))
        #expect(note.userFields.map(\.name) == ["tags", "title", "count"])
        #expect(note.field("tags")?.type == .list(.string))
        #expect(note.field("count")?.type == .int64)
        #expect(note.userFields.allSatisfy { $0.indexes.isEmpty })
        #expect(note.grants == Grant.defaults)
        #expect(note.fields.prefix(6).map(\.name) == SystemField.allCases.map(\.rawValue))
    }

    @Test func aValueOfAnotherTypeThanTheFieldsIsRefused() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        try database.create("Note", "n1", ["count": .int64(1)])
        let result = try database.modify(
            ModifyRequest(operations: [
                RecordOperation(.create, recordName: "n2", recordType: "Note", fields: ["count": .string("one")])
            ]))
        #expect(
            result.first?.error
                == .badRequest(
                    "invalid attempt to set value type STRING for field 'count' for type 'Note', defined to be: INT64"))
        #expect(try database.lookup([RecordLookup("n2")]).first?.error == .notFound("Record not found"))
    }

    @Test func productionRefusesUnknownTypesAndFields() throws {
        let store = try TemporaryStore()
        try store.setSchema([RecordTypeDefinition(name: "Note", fields: [FieldDefinition(name: "title", type: .string)])], .production)
        let database = try store.database(.production)
        let results = try database.modify(
            ModifyRequest(operations: [
                RecordOperation(.create, recordName: "a", recordType: "Task", fields: ["title": .string("x")]),
                RecordOperation(.create, recordName: "b", recordType: "Note", fields: ["body": .string("x")]),
                RecordOperation(.create, recordName: "c", recordType: "Note", fields: ["title": .string("x")]),
            ]))
        #expect(results[0].error == .badRequest("Cannot create new type Task in production schema"))
        #expect(results[1].error == .badRequest("Cannot create or modify field 'body' in record 'Note' in production schema"))
        #expect(results[2].record?.fields == ["title": .string("x")])
        #expect(try store.store.schema(store.container, .production).recordTypes.map(\.name) == ["Note"])
    }

    @Test func badNamesAndMalformedValuesAreRefused() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        let results = try database.modify(
            ModifyRequest(operations: [
                RecordOperation(.create, recordName: "a", recordType: "9Bad"),
                RecordOperation(.create, recordName: "b", recordType: "Note", fields: ["bad-name": .int64(1)]),
                RecordOperation(.create, recordName: "c", recordType: "Note", fields: ["___etag": .string("x")]),
                RecordOperation(.create, recordName: "d", recordType: "Note", fields: ["l": .list(.int64, [.string("x")])]),
                RecordOperation(
                    .create, recordName: "e", recordType: "Note", fields: ["p": .location(Location(latitude: 91, longitude: 0))]),
                RecordOperation(.create, recordName: "", recordType: "Note"),
                RecordOperation(.create, recordName: "f", recordType: "Note", fields: ["d": .double(.nan)]),
            ]))
        for result in results {
            guard case .badRequest = result.error else {
                Issue.record("expected BAD_REQUEST, got \(result)")
                continue
            }
        }
        #expect(try store.store.schema(store.container, .development).recordTypes.isEmpty)
    }

    @Test func recordTypeCannotChangeOnUpdate() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        try database.create("Note", "n1")
        let result = try database.modify(
            ModifyRequest(operations: [
                RecordOperation(.forceUpdate, recordName: "n1", recordType: "Task", fields: ["x": .int64(1)])
            ]))
        #expect(result.first?.error == .badRequest("Record 'n1' is of type 'Note', not 'Task'"))
    }
}
