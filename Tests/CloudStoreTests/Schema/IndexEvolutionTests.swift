import TestSupport
import Testing

@testable import CloudStore

@Suite struct IndexEvolutionTests {
    /// Records saved before an index existed are found through it once it is declared.
    @Test func addingIndexesLaterBackfillsExistingRecords() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        try database.create(
            "Note", "a",
            [
                "title": .string("alpha beta"), "tags": .list(.string, [.string("x")]), "n": .int64(1),
                "at": .location(Location(latitude: 1, longitude: 1)),
            ])
        try database.create("Note", "b", ["title": .string("gamma"), "tags": .list(.string, [.string("y")]), "n": .int64(2)])

        #expect(throws: CloudStoreError.missingIndex(MissingIndex(recordType: "Note", field: "n", index: .queryable))) {
            try database.query(QueryRequest(query: Query(recordType: "Note", filters: [QueryFilter(.field("n"), .equals, .int64(2))])))
        }

        var note = try #require(try store.store.schema(store.container, .development).recordType("Note"))
        for (name, indexes) in [
            ("n", [IndexKind.queryable, .sortable]), ("tags", [.queryable]), ("title", [.searchable, .queryable]), ("at", [.queryable]),
        ] {
            var field = try #require(note.field(name))
            field.indexes = Set(indexes)
            note.upsert(field)
        }
        try store.setSchema([note])

        func names(_ filter: QueryFilter) throws -> [String] {
            try database.query(QueryRequest(query: Query(recordType: "Note", filters: [filter]))).records.map(\.recordName)
        }
        #expect(try names(QueryFilter(.field("n"), .equals, .int64(2))) == ["b"])
        #expect(try names(QueryFilter(.field("tags"), .listContains, .string("x"))) == ["a"])
        #expect(try names(QueryFilter(.field("title"), .containsAnyTokens, .string("BETA"))) == ["a"])
        #expect(try names(QueryFilter(.field("title"), .beginsWith, .string("gam"))) == ["b"])
        #expect(try names(QueryFilter(.field("at"), .near, .location(Location(latitude: 1, longitude: 1)), distance: 10)) == ["a"])

        // Saves after the index exist are indexed as they happen.
        try database.create("Note", "c", ["title": .string("beta again"), "tags": .list(.string, [.string("x")]), "n": .int64(2)])
        #expect(try names(QueryFilter(.field("n"), .equals, .int64(2))) == ["b", "c"])
        #expect(try names(QueryFilter(.field("tags"), .listContains, .string("x"))) == ["a", "c"])
        #expect(try names(QueryFilter(.field("title"), .containsAllTokens, .string("beta"))) == ["a", "c"])
    }

    @Test func droppingAnIndexRefusesQueriesAgainAndReaddingItRebuilds() throws {
        let store = try TemporaryStore()
        let indexed = RecordTypeDefinition(name: "T", fields: [FieldDefinition(name: "v", type: .int64, indexes: [.queryable])])
        try store.setSchema([indexed])
        let database = try store.database()
        try database.create("T", "one", ["v": .int64(1)])
        try store.setSchema([RecordTypeDefinition(name: "T", fields: [FieldDefinition(name: "v", type: .int64)])])
        try database.create("T", "two", ["v": .int64(1)])
        #expect(throws: CloudStoreError.missingIndex(MissingIndex(recordType: "T", field: "v", index: .queryable))) {
            try database.query(QueryRequest(query: Query(recordType: "T", filters: [QueryFilter(.field("v"), .equals, .int64(1))])))
        }
        try store.setSchema([indexed])
        let found = try database.query(QueryRequest(query: Query(recordType: "T", filters: [QueryFilter(.field("v"), .equals, .int64(1))])))
        #expect(found.records.map(\.recordName) == ["one", "two"])
    }

    @Test func fieldTypesCannotChangeAndIndexesMustFitTheType() throws {
        let store = try TemporaryStore()
        try store.setSchema([RecordTypeDefinition(name: "T", fields: [FieldDefinition(name: "v", type: .int64)])])
        #expect(throws: CloudStoreError.badRequest("Cannot change the type of field 'v' of record type 'T' from INT64 to STRING")) {
            try store.setSchema([RecordTypeDefinition(name: "T", fields: [FieldDefinition(name: "v", type: .string)])])
        }
        #expect(throws: CloudStoreError.badRequest("Field 'b' of type BYTES cannot be QUERYABLE")) {
            try store.setSchema([RecordTypeDefinition(name: "U", fields: [FieldDefinition(name: "b", type: .bytes, indexes: [.queryable])])]
            )
        }
        #expect(try store.store.schema(store.container, .development).recordType("U") == nil)
    }
}
