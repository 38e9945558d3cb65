import TestSupport
import Testing

@testable import CloudStore

@Suite struct SchemaImportTests {
    @Test(arguments: [SchemaSamples.apple, SchemaSamples.everything, SchemaSamples.cktoolShaped])
    func exportImportExportGivesTheSameText(_ sample: String) throws {
        let store = try TemporaryStore()
        try store.importSchema(sample)
        let first = try store.store.exportSchema(store.container, .development)
        #expect(try store.store.schema(store.container, .development) == SchemaLanguage.parse(sample))

        let other = try TemporaryStore()
        try other.importSchema(first)
        #expect(try other.store.exportSchema(other.container, .development) == first)
        // Importing the same text again changes nothing.
        try other.importSchema(first)
        #expect(try other.store.exportSchema(other.container, .development) == first)
    }

    /// The preview of an import lists what it adds, changes and removes — the indexes of a type
    /// the text leaves out among them — and changes nothing; production is refused, as the
    /// import itself is.
    @Test func thePreviewListsWhatAnImportWouldChangeAndChangesNothing() throws {
        let store = try TemporaryStore()
        try store.importSchema(
            """
            DEFINE SCHEMA
                CREATE ROLE Editor;
                RECORD TYPE Note ("___recordID" REFERENCE QUERYABLE, title STRING QUERYABLE, GRANT READ TO "_world");
                RECORD TYPE Old (name STRING SORTABLE);
            """)
        let before = try store.store.exportSchema(store.container, .development)
        let text = """
            DEFINE SCHEMA
                RECORD TYPE Note ("___recordID" REFERENCE QUERYABLE, title STRING SEARCHABLE, body STRING, GRANT READ, WRITE TO "_world");
                RECORD TYPE Task (due TIMESTAMP QUERYABLE);
            """
        let preview = try store.store.previewSchemaImport(text, into: store.container, .development)
        #expect(
            preview.added == [
                "add index SEARCHABLE on Note.title", "add field Note.body STRING", "add record type Task (1 field)",
                "add field Task.due TIMESTAMP", "add index QUERYABLE on Task.due",
            ], "\(preview.added)")
        #expect(preview.changed == ["change the grants of Note to READ, WRITE to _world"], "\(preview.changed)")
        #expect(
            preview.removed == ["remove index QUERYABLE from Note.title", "remove index SORTABLE from Old.name", "remove role Editor"],
            "\(preview.removed)")
        #expect(try store.store.exportSchema(store.container, .development) == before)
        #expect(try store.store.previewSchemaImport(before, into: store.container, .development).isEmpty)
        #expect(throws: CloudStoreError.badRequest("Schema can be imported into development only; production changes by deploying")) {
            try store.store.previewSchemaImport(text, into: store.container, .production)
        }
        #expect(throws: CloudStoreError.self) {
            try store.store.previewSchemaImport("DEFINE SCHEMA\n RECORD TYPE Note (title BADTYPE);", into: store.container, .development)
        }
    }

    @Test func aBadSchemaNamesLineAndColumnAndChangesNothing() throws {
        let store = try TemporaryStore()
        try store.importSchema("DEFINE SCHEMA\n    RECORD TYPE Note ( title STRING QUERYABLE );")
        let before = try store.store.exportSchema(store.container, .development)
        do {
            try store.importSchema("DEFINE SCHEMA\n    RECORD TYPE Note (\n        title BADTYPE\n    );")
            Issue.record("a bad schema was accepted")
        } catch CloudStoreError.badRequest(let reason) {
            #expect(reason.hasPrefix("Schema validation failed: "))
            #expect(reason.contains("line 3, column 15"))
        }
        #expect(try store.store.exportSchema(store.container, .development) == before)
    }

    @Test func importedIndexesServeQueriesAndOmittedFieldsKeepTheirData() throws {
        let store = try TemporaryStore()
        try store.importSchema(
            """
            DEFINE SCHEMA
                RECORD TYPE Note (
                    "___recordID" REFERENCE QUERYABLE,
                    title STRING QUERYABLE SEARCHABLE SORTABLE,
                    tags LIST<STRING> QUERYABLE SEARCHABLE SORTABLE,
                    GRANT READ TO "_world"
                );
            """)
        let database = try store.database()
        try database.create(
            "Note", "a", ["title": .string("Buy milk"), "tags": .list(.string, [.string("home chores")]), "extra": .int64(1)])
        try database.create("Note", "b", ["title": .string("Call mom"), "tags": .list(.string, [.string("family")])])
        func names(_ filters: [QueryFilter], _ sorts: [QuerySort] = []) throws -> [String] {
            try database.query(QueryRequest(query: Query(recordType: "Note", filters: filters, sorts: sorts))).records.map(\.recordName)
        }
        #expect(try names([QueryFilter(.field("title"), .containsAnyTokens, .string("milk"))]) == ["a"])
        #expect(try names([QueryFilter(.field("tags"), .containsAllTokens, .string("CHORES"))]) == ["a"])
        #expect(try names([], [QuerySort(.field("title"), ascending: false)]) == ["b", "a"])
        #expect(throws: CloudStoreError.badRequest("Field 'tags' is a list; records cannot be sorted by a list")) {
            try names([], [QuerySort(.field("tags"))])
        }

        // A schema without `extra` and without title's indexes keeps the data but not the indexes.
        try store.importSchema("DEFINE SCHEMA\n    RECORD TYPE Note ( \"___recordID\" REFERENCE QUERYABLE, title STRING );")
        let note = try #require(try store.store.schema(store.container, .development).recordType("Note"))
        #expect(note.field("extra")?.indexes == [])
        #expect(note.field("tags")?.indexes == [])
        #expect(throws: CloudStoreError.missingIndex(MissingIndex(recordType: "Note", field: "title", index: .searchable))) {
            try names([QueryFilter(.field("title"), .containsAnyTokens, .string("milk"))])
        }
        #expect(try database.lookup([RecordLookup("a")]).first?.record?.fields["extra"] == .int64(1))
        #expect(note.grants == [])
    }

    @Test func productionIsNeverImportedInto() throws {
        let store = try TemporaryStore()
        #expect(throws: CloudStoreError.badRequest("Schema can be imported into development only; production changes by deploying")) {
            try store.store.importSchema("DEFINE SCHEMA", into: store.container, .production)
        }
    }
}

@Suite struct SchemaDryRunTests {
    /// Validation runs the import and rolls it back; with records to index (an FTS5 table
    /// created and filled) the rollback must leave the store writable and unchanged.
    @Test func validatingOverExistingRecordsChangesNothingAndLeavesWritesWorking() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        try database.create("Note", "n", ["title": .string("Hello world")])
        let before = try store.store.exportSchema(store.container, .development)
        let schema = try store.store.validateSchema(
            "DEFINE SCHEMA RECORD TYPE Note ( title STRING QUERYABLE SEARCHABLE );", for: store.container, .development)
        #expect(schema.recordType("Note")?.field("title")?.indexes == [.queryable, .searchable])
        #expect(try store.store.exportSchema(store.container, .development) == before)
        try database.create("Note", "m", ["title": .string("Another")])
        #expect(try database.lookup([RecordLookup("m")]).first?.record != nil)
    }
}
