import CloudStore
import Foundation
import TestSupport
import Testing

@Suite struct SchemaCommandsTests {
    static let schema = """
        DEFINE SCHEMA

            RECORD TYPE Note (
                "___recordID" REFERENCE QUERYABLE,
                title STRING QUERYABLE SEARCHABLE SORTABLE,
                GRANT WRITE TO "_creator",
                GRANT READ TO "_world"
            );
        """

    @Test func containersAndSchemaCommandsWorkWhileAStoreHasTheDirectoryOpen() throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        // The long-running process, as `cumulus serve` would hold it.
        let server = try CloudStore(configuration: CloudStoreConfiguration(dataDirectory: data))
        let container = try ContainerIdentifier("iCloud.com.example.Notes")
        #expect(try server.containers().isEmpty)

        let created = try CumulusBinary.run(["containers", "create", container.rawValue, "--data-dir", data])
        #expect(created.status == 0, "\(created.error)")
        #expect(try server.containers().map(\.identifier) == [container])
        let listed = try CumulusBinary.run(["containers", "list"], environment: ["CUMULUS_DATA_DIR": data])
        #expect(listed.output.hasPrefix("iCloud.com.example.Notes\tcreated "))

        // The open store caches the schema; an import by another process must show at once.
        let database = try server.database(container, .development, .public, as: .operator())
        _ = try database.modify(
            ModifyRequest(operations: [
                RecordOperation(.create, recordName: "n", recordType: "Note", fields: ["title": .string("Hello world")])
            ]))
        #expect(throws: CloudStoreError.missingIndex(MissingIndex(recordType: "Note", field: "title", index: .searchable))) {
            try database.query(
                QueryRequest(
                    query: Query(recordType: "Note", filters: [QueryFilter(.field("title"), .containsAnyTokens, .string("hello"))])))
        }
        let file = try directory.file("schema.ckdb", Self.schema)
        let valid = try CumulusBinary.run(["validate-schema", "--file", file, "--container", container.rawValue, "--data-dir", data])
        #expect(valid.status == 0, "\(valid.error)")
        #expect(valid.output.contains("Schema is valid: 1 record types"))
        // A dry run says what the import would change, and changes nothing.
        let dryRun = try CumulusBinary.run([
            "import-schema", "--file", file, "--container", container.rawValue, "--dry-run", "--data-dir", data,
        ])
        #expect(dryRun.status == 0, "\(dryRun.error)")
        #expect(dryRun.output.contains("  + add index SEARCHABLE on Note.title\n"), "\(dryRun.output)")
        #expect(dryRun.output.contains("  ~ change the grants of Note to WRITE to _creator; READ to _world\n"), "\(dryRun.output)")
        #expect(!(try server.exportSchema(container, .development)).contains("SEARCHABLE"))
        let imported = try CumulusBinary.run([
            "import-schema", "--file", file, "--container", container.rawValue, "--environment", "development", "--data-dir", data,
        ])
        #expect(imported.status == 0, "\(imported.error)")
        let found = try database.query(
            QueryRequest(query: Query(recordType: "Note", filters: [QueryFilter(.field("title"), .containsAnyTokens, .string("hello"))])))
        #expect(found.records.map(\.recordName) == ["n"])

        let exported = try CumulusBinary.run(["export-schema", "--container", container.rawValue, "--data-dir", data])
        #expect(exported.output == (try server.exportSchema(container, .development)))
        #expect(exported.output.contains("title           STRING QUERYABLE SEARCHABLE SORTABLE,"))
        let output = directory.path + "/out.ckdb"
        #expect(
            try CumulusBinary.run(["export-schema", "--container", container.rawValue, "--data-dir", data, "--output-file", output]).status
                == 0)
        #expect(try String(contentsOfFile: output, encoding: .utf8) == exported.output)
    }

    @Test func mistakesGiveReadableErrorsAndNonZeroExits() throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        #expect(try CumulusBinary.run(["containers", "create", "iCloud.com.example.A", "--data-dir", data]).status == 0)

        let duplicate = try CumulusBinary.run(["containers", "create", "iCloud.com.example.A", "--data-dir", data])
        #expect(duplicate.status != 0)
        #expect(duplicate.error.contains("Container iCloud.com.example.A already exists"))

        let invalid = try CumulusBinary.run(["containers", "create", "com.example.A", "--data-dir", data])
        #expect(invalid.status != 0)
        #expect(invalid.error.contains("must begin with 'iCloud.'"))

        let bad = try directory.file("bad.ckdb", "DEFINE SCHEMA\n  RECORD TYPE Note (\n    title STRING,\n    n BADTYPE\n  );\n")
        let rejected = try CumulusBinary.run(["import-schema", "--file", bad, "--container", "iCloud.com.example.A", "--data-dir", data])
        #expect(rejected.status != 0)
        #expect(rejected.error.contains("line 4, column 7"))
        #expect(
            try CumulusBinary.run(["export-schema", "--container", "iCloud.com.example.A", "--data-dir", data]).output == "DEFINE SCHEMA\n")

        let production = try CumulusBinary.run([
            "import-schema", "--file", bad, "--container", "iCloud.com.example.A", "--environment", "production", "--data-dir", data,
        ])
        #expect(production.status != 0)
        let missing = try CumulusBinary.run(["export-schema", "--container", "iCloud.com.example.Nope", "--data-dir", data])
        #expect(missing.error.contains("Container iCloud.com.example.Nope does not exist"))
        let noFile = try CumulusBinary.run([
            "validate-schema", "--file", directory.path + "/none.ckdb", "--container", "iCloud.com.example.A", "--data-dir", data,
        ])
        #expect(noFile.error.contains("Cannot read the schema file"))
    }

    /// `delete-schema` counts what would go until told `--yes`, then deletes it.
    @Test func deleteSchemaCountsFirstThenDeletes() throws {
        let temporary = try TemporaryStore()
        let (store, container) = (temporary.store, temporary.container)
        _ = try temporary.database().modify(
            ModifyRequest(operations: [
                RecordOperation(.create, recordName: "a", recordType: "Note", fields: ["title": .string("x"), "mood": .string("calm")]),
                RecordOperation(.create, recordName: "b", recordType: "Note", fields: ["title": .string("y")]),
            ]))
        let place = ["--container", container.rawValue, "--data-dir", temporary.directory]
        let environment = temporary.postgresDatabase.map { ["CUMULUS_DATABASE_URL": $0.url] } ?? [:]
        let counted = try CumulusBinary.run(
            ["delete-schema", "--record-type", "Note", "--field", "mood"] + place, environment: environment)
        #expect(counted.status == 0, "\(counted.error)")
        #expect(counted.output.contains("Would remove 1 value of Note.mood, in 2 records of the type."))
        #expect(try store.schema(container, .development).recordType("Note")?.field("mood") != nil)
        let deleted = try CumulusBinary.run(["delete-schema", "--record-type", "Note", "--yes"] + place, environment: environment)
        #expect(deleted.status == 0, "\(deleted.error)")
        #expect(deleted.output.contains("Deleted: 2 records of Note."))
        // Another process changed the schema: this store learns of it as it does of any such change.
        let note = { try store.schema(container, .development).recordType("Note") }
        #expect(try TestBackend.afterAnotherProcessChanged(note, seen: { $0 == nil }) == nil)
        let refused = try CumulusBinary.run(
            ["delete-schema", "--record-type", "Note", "--environment", "production", "--yes"] + place, environment: environment)
        #expect(refused.status != 0 && refused.error.contains("production schema is read-only"), "\(refused.error)")
    }
}
