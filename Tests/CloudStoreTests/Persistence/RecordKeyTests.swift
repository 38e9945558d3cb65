import Foundation
import TestSupport
import Testing

@testable import CloudStore

/// Record keys are one more than the largest key, with no `sqlite_sequence` row kept for them;
/// files made before keep their records and stop keeping the row once opened.
@Suite(.enabled(if: TestBackend.isSQLite, "About SQLite files and the SQLite writer themselves")) struct RecordKeyTests {
    static let definitionQuery = "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'records'"
    static let sequenceQuery = "SELECT count(*) FROM sqlite_sequence WHERE name = 'records'"

    /// A record row as the store writes it, with a payload no test reads.
    static func insertRow(named name: String, on connection: SQLiteConnection) throws {
        try connection.statement(
            """
            INSERT INTO records(zone, name, type, tag, created, created_by, created_device, modified, modified_by, modified_device, size, payload)
            VALUES (1, ?, 1, 't', 0, '_u', '', 0, '_u', '', 0, x'00')
            """
        ).execute([.text(name)])
    }

    static func key(of name: String, on connection: SQLiteConnection) throws -> Int64? {
        try connection.statement("SELECT rid FROM records WHERE name = ?").scalarInteger([.text(name)])
    }

    @Test func aFileMadeBeforeKeepsItsRecordsAndEveryConnectionStopsCountingKeys() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/development.sqlite"
        // A file made before the key-sequence migration: the only one of steps rather than SQL,
        // found by that so that migrations appended after it leave this test alone.
        let migrations = SQLiteEnvironmentMigrations.migrator.migrations
        let keySequence = try #require(migrations.firstIndex { if case .steps = $0 { true } else { false } })
        let previous = SQLiteMigrator(migrations: Array(migrations[..<keySequence]))
        do {
            let database = try SQLiteDatabase(path: path, synchronous: .normal, migrator: previous)
            try database.write { connection in
                for name in ["a", "b", "c"] { try Self.insertRow(named: name, on: connection) }
                try connection.statement("DELETE FROM records WHERE name = 'c'").execute()
            }
        }
        // Another process's connection, which read the table's definition before the migration.
        let other = try SQLiteConnection(path: path, synchronous: .normal)
        #expect(try other.statement(Self.definitionQuery).firstRow { $0.text(0) }?.contains("AUTOINCREMENT") == true)
        #expect(try other.statement(Self.sequenceQuery).scalarInteger() == 1)

        _ = try SQLiteEnvironmentStore(path: path, synchronous: .normal)
        let connection = try SQLiteConnection(path: path, synchronous: .normal)
        let definition = try #require(try connection.statement(Self.definitionQuery).firstRow { $0.text(0) })
        #expect(!definition.contains("AUTOINCREMENT") && definition.contains("rid INTEGER PRIMARY KEY,"))
        #expect(try connection.statement(Self.sequenceQuery).scalarInteger() == 0)
        #expect(try connection.statement("SELECT group_concat(name || rid) FROM records").firstRow { $0.text(0) } == "a1,b2")

        // The key of the deleted record is taken again, by the other connection too: it read the
        // definition again, since the migration moved the schema cookie.
        try Self.insertRow(named: "d", on: other)
        #expect(try Self.key(of: "d", on: connection) == 3)
        #expect(try connection.statement(Self.sequenceQuery).scalarInteger() == 0, "no connection keeps the sequence row")
        #expect(try connection.statement("PRAGMA integrity_check").firstRow { $0.text(0) } == "ok")
        #expect(
            try connection.statement("PRAGMA user_version").scalarInteger() == Int64(SQLiteEnvironmentMigrations.migrator.migrations.count))
    }

    /// A record created after the record with the largest key was deleted takes that key; nothing
    /// the deleted record left in the indexes, list tables, search table or references reaches it.
    @Test func aKeyTakenAgainFindsNothingOfTheRecordThatHadIt() throws {
        let store = try TemporaryStore()
        try store.setSchema([
            RecordTypeDefinition(
                name: "Item",
                fields: [
                    FieldDefinition(name: "___recordID", type: .reference, indexes: [.queryable]),
                    FieldDefinition(name: "s", type: .string, indexes: [.queryable, .sortable]),
                    FieldDefinition(name: "tags", type: .list(.string), indexes: [.queryable]),
                    FieldDefinition(name: "text", type: .string, indexes: [.searchable]),
                    FieldDefinition(name: "owner", type: .reference, indexes: [.queryable]),
                ])
        ])
        let database = try store.database()
        let path = store.store.backend.environmentStorageName(store.container, .development)
        let connection = try SQLiteConnection(path: path, synchronous: .normal)
        _ = try database.modify(
            ModifyRequest(operations: [
                RecordOperation(.create, recordName: "kept", recordType: "Item", fields: ["s": .string("kept")]),
                RecordOperation(
                    .create, recordName: "gone", recordType: "Item",
                    fields: [
                        "s": .string("gone"), "tags": .list(.string, [.string("gone-tag")]), "text": .string("vanished words"),
                        "owner": .reference(Reference(recordName: "kept", action: .deleteSelf)),
                    ]),
            ]))
        let goneKey = try #require(try Self.key(of: "gone", on: connection))
        _ = try database.modify(ModifyRequest(operations: [RecordOperation(.forceDelete, recordName: "gone")]))
        _ = try database.modify(
            ModifyRequest(operations: [
                RecordOperation(.create, recordName: "new", recordType: "Item", fields: ["s": .string("new")])
            ]))
        #expect(try Self.key(of: "new", on: connection) == goneKey, "the largest key is taken again")
        #expect(try connection.statement(Self.sequenceQuery).scalarInteger() == 0)

        func names(_ filter: QueryFilter) throws -> [String] {
            try database.query(QueryRequest(query: Query(recordType: "Item", filters: [filter]))).records.map(\.recordName).sorted()
        }
        #expect(try names(QueryFilter(.field("tags"), .listContains, .string("gone-tag"))).isEmpty)
        #expect(try names(QueryFilter(.field("text"), .containsAllTokens, .string("vanished"))).isEmpty)
        #expect(try names(QueryFilter(.field("s"), .equals, .string("gone"))).isEmpty)
        #expect(try names(QueryFilter(.field("s"), .equals, .string("new"))) == ["new"])
        // Deleting the record the old one referred to with DELETE_SELF deletes nothing else.
        _ = try database.modify(ModifyRequest(operations: [RecordOperation(.forceDelete, recordName: "kept")]))
        #expect(try database.lookup([RecordLookup("new")]).first?.record?.recordName == "new")
    }
}
