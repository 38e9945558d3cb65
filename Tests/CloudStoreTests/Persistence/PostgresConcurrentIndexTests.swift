import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CloudStore

/// Production's indexes on PostgreSQL are built with `CREATE INDEX CONCURRENTLY` after the
/// deploy commits: writes go on meanwhile, queries answer the same, and what an interrupted
/// build leaves invalid is built again.
@Suite(.enabled(if: TestBackend.isDefaultRun, "Runs against PostgreSQL itself, once, in the default run"))
struct PostgresConcurrentIndexTests {
    let database: TestDatabase
    let store: CloudStore
    let container = try! ContainerIdentifier("iCloud.com.example.Indexes")

    static let plain = "DEFINE SCHEMA\n    RECORD TYPE Note (\"___recordID\" REFERENCE QUERYABLE, title STRING, body STRING);\n"
    static let indexed =
        "DEFINE SCHEMA\n    RECORD TYPE Note (\"___recordID\" REFERENCE QUERYABLE, title STRING QUERYABLE SORTABLE, body STRING SEARCHABLE);\n"

    /// A production environment with 60 notes and no index on their fields.
    init() throws {
        database = try TestPostgres.makeDatabase()
        store = try database.process()
        try store.createContainer(container)
        try store.importSchema(Self.plain, into: container, .development)
        _ = try store.deploySchema(container, deployedBy: "test")
        let production = try notes(store)
        for index in 0..<60 {
            try production.create("Note", "n\(index)", ["title": .string("t\(index % 6)"), "body": .string("word\(index)")])
        }
        try store.importSchema(Self.indexed, into: container, .development)
    }

    private func notes(_ store: CloudStore) throws -> CloudDatabase {
        try store.database(container, .production, .public, as: .operator())
    }

    private var schema: String { PostgresStorageBackend.environmentSchema(container, .production) }

    /// The indexes of production's fields (not the tables' own), by name, with whether each is valid.
    private func fieldIndexes() throws -> [String: Bool] {
        let rows = try RawPostgres(url: database.url).execute(
            """
            SELECT c.relname, i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = '\(schema)' AND (c.relname ~ '^records_t[0-9]+_f[0-9]+$' OR c.relname ~ '^fts_.*_f[0-9]+$')
            """)
        return Dictionary(uniqueKeysWithValues: rows.map { ($0[0], $0[1] == "t") })
    }

    private func names(_ query: Query) throws -> [String] {
        try notes(store).query(QueryRequest(query: query, resultsLimit: 200)).records.map(\.recordName)
    }

    private static let titled = Query(recordType: "Note", filters: [QueryFilter(.field("title"), .equals, .string("t3"))])
    private static let everything = Query(recordType: "Note")
    private static let expectedTitled = Set((0..<60).filter { $0 % 6 == 3 }.map { "n\($0)" })

    @Test func aDeployToAPopulatedProductionBuildsValidIndexesAndQueriesAnswerTheSame() throws {
        let before = Set(try names(Self.everything))
        #expect(before.count == 60)
        #expect(try fieldIndexes().keys.allSatisfy { $0.hasPrefix("records_") })

        _ = try store.deploySchema(container, deployedBy: "test")
        let indexes = try fieldIndexes()
        // ___recordID's, title's and body's words'.
        #expect(indexes.count == 3)
        #expect(indexes.values.allSatisfy { $0 })
        #expect(indexes.keys.contains { $0.hasPrefix("fts_") })
        #expect(Set(try names(Self.everything)) == before)
        #expect(Set(try names(Self.titled)) == Self.expectedTitled)
        let sorted = Query(recordType: "Note", sorts: [QuerySort(.field("title"), ascending: false)])
        #expect(try names(sorted).prefix(10).allSatisfy { Int($0.dropFirst())! % 6 == 5 })
    }

    @Test func anIndexLeftInvalidIsBuiltAgainWhenTheEnvironmentOpens() throws {
        _ = try store.deploySchema(container, deployedBy: "test")
        let raw = try RawPostgres(url: database.url)
        // title's: the one over a field's column (`___recordID`'s is over the record key).
        let title = try #require(
            try raw.execute(
                "SELECT indexname FROM pg_indexes WHERE schemaname = '\(schema)' AND indexdef LIKE '%NULLS FIRST%'"
            ).first?.first)
        let oid = try raw.execute("SELECT '\(schema).\(title)'::regclass::oid")[0][0]
        // What an interrupted CREATE INDEX CONCURRENTLY leaves behind (the test role is a superuser).
        try raw.execute("UPDATE pg_index SET indisvalid = false WHERE indexrelid = '\(schema).\(title)'::regclass")
        #expect(try fieldIndexes()[title] == false)

        // The next process to open production (as `cumulus migrate` or a server does) rebuilds it.
        let next = try database.process()
        try next.migrateEverything()
        #expect(try fieldIndexes()[title] == true)
        #expect(try raw.execute("SELECT '\(schema).\(title)'::regclass::oid")[0][0] != oid)
        #expect(Set(try names(Self.titled)) == Self.expectedTitled)
    }

    @Test func aWriteCommitsWhileAnIndexIsBeingBuilt() throws {
        // A new type whose indexed field reuses a slot column the first deploy made: this deploy's
        // transaction adds no column to `records`, whose ALTER TABLE would wait for the holder below.
        _ = try store.deploySchema(container, deployedBy: "test")
        try store.importSchema(
            Self.indexed + "    RECORD TYPE Task (\"___recordID\" REFERENCE QUERYABLE, title STRING QUERYABLE);\n", into: container,
            .development)
        // A transaction that may write to the table: a concurrent build waits for it to end
        // before it starts, which keeps the build in progress for as long as the test needs. (A
        // plain CREATE INDEX would queue for its lock instead, and every later write behind it.)
        let holder = try RawPostgres(url: database.url)
        try holder.execute("BEGIN; LOCK TABLE \(schema).records IN ROW EXCLUSIVE MODE")
        let deployed = Mutex<Result<SchemaDeployment, any Error>?>(nil)
        let (store, container) = (store, container)
        let thread = Thread {
            let result = Result { try store.deploySchema(container, deployedBy: "test") }
            deployed.withLock { $0 = result }
        }
        thread.start()
        let observer = try RawPostgres(url: database.url)
        try waitUntil(timeout: 60, pollingEvery: 10_000) {
            if let early = deployed.withLock({ $0 }) { throw TestFailure("the deploy ended before its index build waited: \(early)") }
            return try observer.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'CREATE INDEX CONCURRENTLY%' AND wait_event_type = 'Lock'"
            ) == [["1"]]
        }

        // The schema change committed and the build is waiting: a write to the table goes through.
        let wrote = DispatchSemaphore(value: 0)
        let written = Mutex<Result<Record, any Error>?>(nil)
        let production = try notes(store)
        Thread {
            let result = Result { try production.create("Note", "during", ["title": .string("t3")]) }
            written.withLock { $0 = result }
            wrote.signal()
        }.start()
        #expect(wrote.wait(timeout: .now() + 60) == .success, "the write waited for the index build")
        #expect(try written.withLock { try $0?.get() }?.recordName == "during")
        #expect(try observer.execute("SELECT count(*) FROM \(schema).records WHERE name = 'during'") == [["1"]])
        #expect(deployed.withLock { $0 } == nil)

        try holder.execute("COMMIT")
        try waitUntil(timeout: 60, pollingEvery: 10_000) { deployed.withLock { $0 } != nil }
        _ = try deployed.withLock { try $0!.get() }
        let indexes = try fieldIndexes()
        // Note's three and Task's two.
        #expect(indexes.count == 5)
        #expect(indexes.values.allSatisfy { $0 })
        #expect(Set(try names(Self.titled)) == Self.expectedTitled.union(["during"]))
    }
}
