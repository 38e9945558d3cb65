import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CloudStore

/// An environment kept in a PostgreSQL schema of a throw-away database, its record types saved
/// through ``PostgresSchemaWriter`` and its records written the way the store writes them: the
/// row by the type's `insertSQL`, everything beside it by ``PostgresProjections``.
private final class PostgresEnvironment {
    let database: TestDatabase
    let connection: PostgresConnection
    let schema = "env_dev"
    var writer: PostgresSchemaWriter
    let zone: StoredZone

    init(types: [RecordTypeDefinition], database: TestDatabase? = nil) throws {
        self.database = try database ?? TestPostgres.makeDatabase()
        connection = try PostgresConnection(url: self.database.url)
        try PostgresEnvironmentMigrations.migrator.migrate(connection, schema: schema)
        writer = try PostgresSchemaWriter(connection: connection, schema: schema)
        for type in types { try writer.saveRecordType(type) }
        let key =
            try connection.execute(
                "INSERT INTO env_dev.zones(scope, owner, name, created) VALUES (0, '_owner', '_defaultZone', 0) RETURNING zone"
            ).scalarInteger() ?? 0
        zone = StoredZone(
            key: key, zoneID: ZoneID(zoneName: "_defaultZone", ownerRecordName: "_owner"),
            database: DatabaseID(scope: .public, owner: "_owner"), created: 0)
    }

    var catalog: SchemaCatalog { writer.catalog }

    /// Stores a record: its row, then its projections. Returns its key.
    @discardableResult
    func insert(_ name: String, _ typeName: String, _ fields: [String: FieldValue]) throws -> Int64 {
        let type = try catalog.recordType(typeName)
        let stamp = RecordStamp(timestamp: 1, userRecordName: "_user", deviceID: "device")
        let record = Record(
            recordName: name, recordType: typeName, zoneID: zone.zoneID, fields: fields, changeTag: "tag", created: stamp, modified: stamp)
        let values: [PostgresValue] =
            [
                .integer(zone.key), .text(name), .integer(type.id), .text("tag"), .null, .integer(1), .text("_user"), .text("device"),
                .integer(1), .text("_user"), .text("device"), .integer(RecordSize.of(record)), .bytes(RecordPayloadCodec.encode(fields)),
            ] + PostgresProjections.slotValues(of: type, in: fields)
        guard let key = try connection.execute(type.insertSQL, values).scalarInteger() else {
            throw TestFailure("\(name) was not inserted")
        }
        try PostgresProjections.write(record: record, key: key, zone: zone.key, type: type, on: connection, schema: schema)
        return key
    }

    /// One page of `query`'s rows after `position`.
    func rows(_ query: Query, limit: Int = 200, after position: QueryPlan.Position? = nil) throws -> [QueryRow] {
        var plan = try QueryPlanner(schema: catalog.schema).plan(query, zones: [zone], limit: limit)
        plan.after = position
        return try PostgresRecordQuery.run(plan, catalog: catalog, on: connection, schema: schema)
    }

    /// Every record name `query` matches, in order, read in pages of `pageSize`.
    func names(_ query: Query, pageSize: Int) throws -> [String] {
        var names: [String] = []
        var position: QueryPlan.Position?
        while true {
            let page = try rows(query, limit: pageSize, after: position)
            names += page.map(\.stored.record.recordName)
            guard page.count == pageSize, let last = page.last else { return names }
            position = QueryPlan.Position(sortValues: last.sortValues, key: last.stored.key)
        }
    }

    /// The number of rows of `table` in the environment's schema.
    func count(_ table: String, _ condition: String = "true") throws -> Int64 {
        try connection.execute("SELECT count(*) FROM env_dev.\(table) WHERE \(condition)").scalarInteger() ?? -1
    }
}

/// Every record name `query` matches on SQLite, in order, read in pages of `pageSize`.
private func sqliteNames(_ database: CloudDatabase, _ query: Query, pageSize: Int) throws -> [String] {
    var names: [String] = []
    var marker: String?
    repeat {
        let page = try database.query(QueryRequest(query: query, resultsLimit: pageSize, continuationMarker: marker))
        names += page.records.map(\.recordName)
        marker = page.continuationMarker
    } while marker != nil
    return names
}

/// The same records in a SQLite store and a PostgreSQL environment.
private func bothStores(_ type: RecordTypeDefinition, _ records: [(String, [String: FieldValue])]) throws
    -> (TemporaryStore, CloudDatabase, PostgresEnvironment)
{
    let store = try TemporaryStore()
    try store.setSchema([type])
    let database = try store.database()
    let results = try database.modify(
        ModifyRequest(
            operations: records.map {
                RecordOperation(.create, recordName: $0.0, recordType: type.name, fields: $0.1)
            }))
    guard results.allSatisfy({ $0.record != nil }) else { throw TestFailure("SQLite setup failed: \(results)") }
    let environment = try PostgresEnvironment(types: [type])
    for (name, fields) in records { try environment.insert(name, type.name, fields) }
    return (store, database, environment)
}

/// A type for sorting and paging: values from small sets, so that ties and missing values
/// (NULLs) are common, and texts whose code-point order differs from a locale's.
private enum SortFixture {
    static let type = RecordTypeDefinition(
        name: "Item",
        fields: [
            FieldDefinition(name: "___recordID", type: .reference, indexes: [.queryable]),
            FieldDefinition(name: "s", type: .string, indexes: [.queryable, .sortable]),
            FieldDefinition(name: "i", type: .int64, indexes: [.queryable, .sortable]),
            FieldDefinition(name: "d", type: .double, indexes: [.queryable, .sortable]),
            FieldDefinition(name: "n", type: .double, indexes: [.queryable, .sortable], numberPreference: .unspecified),
            FieldDefinition(name: "loc", type: .location, indexes: [.queryable, .sortable]),
            FieldDefinition(name: "sl", type: .list(.string), indexes: [.queryable]),
            FieldDefinition(name: "text", type: .string, indexes: [.searchable]),
        ])

    static let strings = ["", "a", "B", "b", "ab", "é", "z", "Zoo", "apple", "ápple", "日本"]
    static let words = ["Café", "cafe", "CAFÉ", "au", "lait", "the", "Thé", "naïve", "über", "uber", "x-ray", "O'Brien"]

    static func records(count: Int, seed: UInt64) -> [(String, [String: FieldValue])] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { index in
            var fields: [String: FieldValue] = [:]
            if generator.next(below: 5) > 0 { fields["s"] = .string(strings[generator.next(below: strings.count)]) }
            if generator.next(below: 5) > 0 { fields["i"] = .int64(Int64(generator.next(below: 7)) - 3) }
            if generator.next(below: 5) > 0 { fields["d"] = .double(Double(generator.next(below: 9)) / 4 - 1) }
            if generator.next(below: 4) > 0 {
                fields["n"] =
                    generator.next(below: 2) == 0 ? .int64(Int64(generator.next(below: 5))) : .double(Double(generator.next(below: 9)) / 2)
            }
            if generator.next(below: 4) > 0 {
                fields["loc"] = .location(
                    Location(
                        latitude: Double(generator.next(below: 200)) / 100 - 1, longitude: Double(generator.next(below: 200)) / 100 - 1))
            }
            fields["sl"] = .list(
                .string, (0..<generator.next(below: 4)).map { _ in .string(strings[generator.next(below: strings.count)]) })
            if generator.next(below: 4) > 0 {
                fields["text"] = .string(
                    (0..<1 + generator.next(below: 4)).map { _ in words[generator.next(below: words.count)] }.joined(separator: " "))
            }
            return (String(format: "r%03d", index), fields)
        }
    }
}

@Suite(.enabled(if: TestBackend.isDefaultRun, "Runs against PostgreSQL itself, once, in the default run"))
struct PostgresSchemaAndQueryTests {
    @Test func theMigrationsMakeEveryTableAndTheMetaKeys() throws {
        let environment = try PostgresEnvironment(types: [])
        let tables = try environment.connection.execute(
            "SELECT tablename::text FROM pg_tables WHERE schemaname = 'env_dev' ORDER BY 1"
        ).map { $0.text(0) }
        for table in [
            "asset_blobs", "asset_refs", "changes", "fields", "grants", "meta", "notifications", "record_types", "records", "refs", "roles",
            "share_participants", "shares", "subscriptions", "type_stats", "user_roles", "zone_log", "zone_stats", "zones",
        ] {
            #expect(tables.contains(table), "missing \(table)")
        }
        let keys = try environment.connection.execute("SELECT key FROM env_dev.meta ORDER BY key").map { $0.text(0) }
        #expect(Set(["schema_version", "slot_columns", "zones_generation", "incarnation"]).isSubset(of: Set(keys)))
        // Migrating again runs nothing.
        #expect(try PostgresEnvironmentMigrations.migrator.migrate(environment.connection, schema: environment.schema) == 0)
    }

    @Test func savingATypeMakesItsSlotsIndexesListTablesAndSearchIndex() throws {
        let environment = try PostgresEnvironment(types: [QueryFixture.type])
        let type = try environment.catalog.recordType("Thing")
        #expect(environment.catalog.schema.recordType("Thing") == QueryFixture.type)
        // s, i, d, t, r, loc (two), and five lists' counts.
        #expect(try environment.count("meta", "key = 'slot_columns' AND value = '12'") == 1)
        let indexes = Set(
            try environment.connection.execute(
                "SELECT indexname::text FROM pg_indexes WHERE schemaname = 'env_dev'"
            ).map { $0.text(0) })
        for field in type.orderedFields where field.definition.has(.queryable) && !field.definition.type.isList {
            #expect(indexes.contains("records_t\(type.id)_f\(field.id)"), "no index for \(field.definition.name)")
        }
        #expect(indexes.contains("fts_\(type.id)_f\(try #require(type.fields["text"]).id)"))
        for field in type.listFields {
            #expect(try environment.count(PostgresProjections.listTable(type, field)) == 0)
        }
        // A second load reads the same catalog.
        let reloaded = try SchemaCatalog.load(from: environment.connection, schema: environment.schema)
        #expect(reloaded.schema == environment.catalog.schema)
        #expect(reloaded.types["Thing"]?.fields == type.fields)
        #expect(type.dialect as? PostgresRecordTypeDialect == PostgresRecordTypeDialect(schema: "\"env_dev\""))
    }

    @Test func everyComparatorAnswersAsSQLiteDoes() throws {
        let (store, database) = try QueryFixture.make()
        defer { _ = store }
        let environment = try PostgresEnvironment(types: [QueryFixture.type])
        for (name, fields) in QueryFixture.records { try environment.insert(name, "Thing", fields) }
        for testCase in comparatorCases {
            let query = Query(
                recordType: "Thing",
                filters: [
                    QueryFilter(QueryField(fieldName: testCase.field), testCase.comparator, testCase.value, distance: testCase.distance)
                ])
            let sqlite = Set(try database.query(QueryRequest(query: query)).records.map(\.recordName))
            let postgres = Set(try environment.rows(query).map(\.stored.record.recordName))
            #expect(postgres == sqlite, "\(testCase.testDescription)")
            #expect(postgres == testCase.expected, "\(testCase.testDescription)")
        }
    }

    @Test func sortsAndPagesAnswerAsSQLiteDoes() throws {
        let (store, database, environment) = try bothStores(SortFixture.type, SortFixture.records(count: 45, seed: 7))
        defer { _ = store }
        let origin = Location(latitude: 0, longitude: 0)
        let queries: [Query] = [
            Query(recordType: "Item"),
            Query(recordType: "Item", sorts: [QuerySort(QueryField(fieldName: "s"))]),
            Query(recordType: "Item", sorts: [QuerySort(QueryField(fieldName: "s"), ascending: false)]),
            Query(
                recordType: "Item", sorts: [QuerySort(QueryField(fieldName: "i")), QuerySort(QueryField(fieldName: "s"), ascending: false)]),
            Query(
                recordType: "Item", sorts: [QuerySort(QueryField(fieldName: "d"), ascending: false), QuerySort(QueryField(fieldName: "i"))]),
            Query(recordType: "Item", sorts: [QuerySort(QueryField(fieldName: "n")), QuerySort(QueryField(fieldName: "d"))]),
            Query(recordType: "Item", sorts: [QuerySort(QueryField(fieldName: "loc"), relativeLocation: origin)]),
            Query(recordType: "Item", sorts: [QuerySort(QueryField(fieldName: "loc"), ascending: false, relativeLocation: origin)]),
            Query(
                recordType: "Item", filters: [QueryFilter(QueryField(fieldName: "i"), .greaterThanOrEquals, .int64(0))],
                sorts: [QuerySort(QueryField(fieldName: "s"))]),
            Query(
                recordType: "Item", filters: [QueryFilter(QueryField(fieldName: "s"), .beginsWith, .string("a"))],
                sorts: [QuerySort(QueryField(fieldName: "i"), ascending: false)]),
            Query(
                recordType: "Item", filters: [QueryFilter(QueryField(fieldName: "s"), .lessThan, .string("b"))],
                sorts: [QuerySort(QueryField(fieldName: "s"))]),
            Query(recordType: "Item", filters: [QueryFilter(QueryField(fieldName: "n"), .in, .list(.double, [.int64(1), .double(1.5)]))]),
            Query(
                recordType: "Item", filters: [QueryFilter(QueryField(fieldName: "sl"), .listMemberBeginsWith, .string("a"))],
                sorts: [QuerySort(QueryField(fieldName: "d"))]),
            Query(recordType: "Item", filters: [QueryFilter(QueryField(fieldName: "sl"), .notListContains, .string("b"))]),
            Query(
                recordType: "Item",
                filters: [
                    QueryFilter(QueryField(fieldName: "loc"), .near, .location(origin), distance: 80_000)
                ], sorts: [QuerySort(QueryField(fieldName: "loc"), relativeLocation: origin)]),
            Query(recordType: "Item", filters: [QueryFilter(QueryField(fieldName: "text"), .containsAnyTokens, .string("cafe"))]),
            Query(recordType: "Item", filters: [QueryFilter(QueryField(fieldName: "text"), .containsAnyTokens, .string("UBER, the"))]),
            Query(recordType: "Item", filters: [QueryFilter(QueryField(fieldName: "text"), .containsAllTokens, .string("café au"))]),
            Query(recordType: "Item", filters: [QueryFilter(QueryField(fieldName: "text"), .containsAllTokens, .string("naive O'Brien"))]),
            Query(
                recordType: "Item", filters: [QueryFilter(QueryField(fieldName: "text"), .containsAllTokens, .string("x ray"))],
                sorts: [QuerySort(QueryField(fieldName: "s"), ascending: false)]),
        ]
        for query in queries {
            for pageSize in [200, 7] {
                let sqlite = try sqliteNames(database, query, pageSize: pageSize)
                let postgres = try environment.names(query, pageSize: pageSize)
                #expect(postgres == sqlite, "\(query) in pages of \(pageSize)")
            }
        }
        // The fixture makes non-trivial answers.
        #expect(try environment.names(queries[15], pageSize: 200).count > 3)
    }

    @Test func aQueryableFilterUsesItsPartialIndex() throws {
        let environment = try PostgresEnvironment(types: [QueryFixture.type])
        for (name, fields) in QueryFixture.records { try environment.insert(name, "Thing", fields) }
        let type = try environment.catalog.recordType("Thing")
        let plan = try QueryPlanner(schema: environment.catalog.schema).plan(
            Query(recordType: "Thing", filters: [QueryFilter(QueryField(fieldName: "i"), .equals, .int64(2))]),
            zones: [environment.zone], limit: 10)
        let statement = try PostgresQuerySQLBuilder(plan: plan, type: type, schema: environment.schema).build()
        let explained = try environment.connection.transaction {
            // Five rows: without this the planner rightly reads the table, and the test would
            // say nothing about whether the index fits.
            try environment.connection.executeScript("SET LOCAL enable_seqscan = off")
            return try environment.connection.execute("EXPLAIN " + statement.sql, statement.parameters).map { $0.text(0) }
        }.joined(separator: "\n")
        let index = "records_t\(type.id)_f\(try #require(type.fields["i"]).id)"
        #expect(explained.contains(index), "\(explained)")
    }

    @Test func twoConnectionsSavingTheSameNewFieldMakeOneFieldAndOneSlot() throws {
        let base = RecordTypeDefinition(name: "Note", fields: [FieldDefinition(name: "title", type: .string, indexes: [.queryable])])
        let environment = try PostgresEnvironment(types: [base])
        let extended = RecordTypeDefinition(
            name: "Note",
            fields: base.fields + [
                FieldDefinition(name: "rank", type: .int64, indexes: [.queryable, .sortable])
            ])
        let url = environment.database.url
        let schema = environment.schema
        let slotsBefore = try environment.count("meta", "key = 'slot_columns' AND value = '1'")
        #expect(slotsBefore == 1)

        // The first holds the schema lock in an open transaction while the second tries.
        let first = try PostgresConnection(url: url)
        var firstWriter = try PostgresSchemaWriter(connection: first, schema: schema)
        try first.begin()
        try firstWriter.saveRecordType(extended)
        let outcome = Mutex<Result<Void, any Error>?>(nil)
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            let result = Result<Void, any Error> {
                let second = try PostgresConnection(url: url)
                // Read before the first commits: its catalog lacks the field.
                var writer = try PostgresSchemaWriter(connection: second, schema: schema)
                try writer.saveRecordType(extended)
                guard writer.catalog.types["Note"]?.fields["rank"]?.slot == 2 else {
                    throw TestFailure("the second writer sees another slot")
                }
            }
            outcome.withLock { $0 = result }
            finished.signal()
        }
        thread.start()
        Thread.sleep(forTimeInterval: 0.3)
        #expect(outcome.withLock { $0 } == nil, "the second save did not wait for the lock")
        try first.commit()
        #expect(finished.wait(timeout: .now() + 30) == .success)
        try outcome.withLock { try #require($0).get() }

        #expect(try environment.count("fields", "name = 'rank'") == 1)
        #expect(try environment.count("meta", "key = 'slot_columns' AND value = '2'") == 1)
        let columns = try environment.connection.execute(
            "SELECT count(*) FROM information_schema.columns WHERE table_schema = 'env_dev' AND table_name = 'records' AND column_name ~ '^p[0-9]+$'"
        ).scalarInteger()
        #expect(columns == 2)
    }

    @Test func indexesAddedLaterAreFilledFromStoredRecordsAndDroppedIndexesEmptied() throws {
        var type = RecordTypeDefinition(
            name: "Doc",
            fields: [
                FieldDefinition(name: "___recordID", type: .reference, indexes: [.queryable]),
                FieldDefinition(name: "title", type: .string),
                FieldDefinition(name: "tags", type: .list(.string)),
                FieldDefinition(name: "body", type: .string),
                FieldDefinition(name: "count", type: .int64),
            ])
        let environment = try PostgresEnvironment(types: [type])
        try environment.insert(
            "a", "Doc", ["title": .string("alpha"), "tags": .list(.string, [.string("x"), .string("y")]), "body": .string("Hello wörld")])
        try environment.insert(
            "b", "Doc",
            ["title": .string("beta"), "tags": .list(.string, [.string("y")]), "body": .string("worlds apart"), "count": .int64(3)])
        type.upsert(FieldDefinition(name: "title", type: .string, indexes: [.queryable, .sortable]))
        type.upsert(FieldDefinition(name: "tags", type: .list(.string), indexes: [.queryable]))
        type.upsert(FieldDefinition(name: "body", type: .string, indexes: [.searchable]))
        type.upsert(FieldDefinition(name: "count", type: .int64, indexes: [.queryable]))
        try environment.writer.saveRecordType(type)

        func names(_ filter: QueryFilter) throws -> [String] {
            try environment.rows(Query(recordType: "Doc", filters: [filter], sorts: [QuerySort(QueryField(fieldName: "title"))]))
                .map(\.stored.record.recordName)
        }
        #expect(try names(QueryFilter(QueryField(fieldName: "title"), .equals, .string("beta"))) == ["b"])
        #expect(try names(QueryFilter(QueryField(fieldName: "tags"), .listContains, .string("y"))) == ["a", "b"])
        #expect(try names(QueryFilter(QueryField(fieldName: "body"), .containsAnyTokens, .string("WORLD"))) == ["a"])
        #expect(try names(QueryFilter(QueryField(fieldName: "count"), .lessThan, .int64(5))) == ["b"])
        // A string slot and an integer slot never share a column.
        let catalogType = try environment.catalog.recordType("Doc")
        #expect(catalogType.fields["title"]?.slot != catalogType.fields["count"]?.slot)

        // Dropping the indexes empties what they kept; the fields keep their slots.
        let tagsTable = PostgresProjections.listTable(catalogType, try #require(catalogType.fields["tags"]))
        type.upsert(FieldDefinition(name: "tags", type: .list(.string)))
        type.upsert(FieldDefinition(name: "body", type: .string))
        type.upsert(FieldDefinition(name: "count", type: .int64))
        try environment.writer.saveRecordType(type)
        #expect(try environment.connection.execute("SELECT to_regclass('env_dev.\(tagsTable)') IS NULL").first { $0.bool(0) } == true)
        #expect(
            try environment.connection.execute("SELECT to_regclass('env_dev.fts_\(catalogType.id)') IS NULL").first { $0.bool(0) } == true)
        #expect(try environment.catalog.recordType("Doc").fields["count"]?.slot == catalogType.fields["count"]?.slot)
        #expect(try environment.count("records", "\(try #require(catalogType.fields["count"]).column) IS NOT NULL") == 0)
    }

    @Test func deletingARecordRemovesEveryProjection() throws {
        let environment = try PostgresEnvironment(types: [QueryFixture.type])
        let type = try environment.catalog.recordType("Thing")
        let fields = QueryFixture.records[0].1.merging(
            ["r": .reference(Reference(recordName: "x", action: .deleteSelf))], uniquingKeysWith: { $1 })
        let key = try environment.insert("a", "Thing", fields)
        let other = try environment.insert("b", "Thing", QueryFixture.records[1].1)
        let listRows = {
            try type.listFields.reduce(Int64(0)) { $0 + (try environment.count(PostgresProjections.listTable(type, $1), "rid = \(key)")) }
        }
        #expect(try listRows() == 9)
        #expect(try environment.count("fts_\(type.id)", "rid = \(key)") == 1)
        #expect(try environment.count("refs", "source = \(key)") == 1)

        let stamp = RecordStamp(timestamp: 1, userRecordName: "_user", deviceID: "device")
        let record = Record(
            recordName: "a", recordType: "Thing", zoneID: environment.zone.zoneID, fields: fields, changeTag: "tag", created: stamp,
            modified: stamp)
        try PostgresProjections.delete(
            record: record, key: key, zone: environment.zone.key, type: type, on: environment.connection, schema: environment.schema)
        try environment.connection.execute("DELETE FROM env_dev.records WHERE rid = $1", [.integer(key)])
        #expect(try listRows() == 0)
        #expect(try environment.count("fts_\(type.id)", "rid = \(key)") == 0)
        #expect(try environment.count("refs", "source = \(key)") == 0)
        #expect(try environment.count("fts_\(type.id)", "rid = \(other)") == 1)

        // Replacing a record's fields rewrites what changed.
        var changed = QueryFixture.records[1].1
        changed["sl"] = .list(.string, [.string("violet")])
        changed["text"] = .string("entirely new words")
        let old = Record(
            recordName: "b", recordType: "Thing", zoneID: environment.zone.zoneID, fields: QueryFixture.records[1].1, changeTag: "tag",
            created: stamp, modified: stamp)
        var new = old
        new.fields = changed
        try PostgresProjections.replace(
            old, with: new, key: other, zone: environment.zone.key, type: type, on: environment.connection, schema: environment.schema,
            slots: true)
        let found = try environment.rows(
            Query(
                recordType: "Thing",
                filters: [
                    QueryFilter(QueryField(fieldName: "sl"), .listContains, .string("violet")),
                    QueryFilter(QueryField(fieldName: "text"), .containsAllTokens, .string("new words")),
                ]))
        #expect(found.map(\.stored.key) == [other])
    }

    @Test func replacingTheSchemaKeepsDataAndRolesAreKeptPerUser() throws {
        let environment = try PostgresEnvironment(types: [QueryFixture.type])
        try environment.insert("a", "Thing", QueryFixture.records[0].1)
        let other = RecordTypeDefinition(name: "Other", fields: [FieldDefinition(name: "x", type: .int64, indexes: [.queryable])])
        try environment.writer.replaceSchema(Schema(roles: ["editor", "viewer"], recordTypes: [other]))
        #expect(environment.catalog.schema.roles == ["editor", "viewer"])
        // The left-out type keeps its fields and data, without indexes.
        let kept = try environment.catalog.recordType("Thing")
        #expect(kept.projectedFields.isEmpty)
        #expect(try environment.count("records") == 1)
        #expect(environment.catalog.types["Other"] != nil)

        try environment.writer.setRoles(["editor", "viewer"], of: "_alice")
        try environment.writer.setRoles(["viewer"], of: "_bob")
        #expect(try environment.writer.roles(of: "_alice") == ["editor", "viewer"])
        try environment.writer.replaceSchema(Schema(roles: ["viewer"], recordTypes: [other]))
        #expect(try environment.writer.roleAssignments() == ["_alice": ["viewer"], "_bob": ["viewer"]])
    }

    @Test func prefixSuccessorsStayValidText() {
        #expect(PostgresQuerySQLBuilder.successor(of: "ab") == "ac")
        #expect(PostgresQuerySQLBuilder.successor(of: "a\u{D7FF}") == "a\u{E000}")
        #expect(PostgresQuerySQLBuilder.successor(of: "a\u{10FFFF}") == "b")
        #expect(PostgresQuerySQLBuilder.successor(of: "\u{10FFFF}") == nil)
        #expect(SearchWords.words(of: "Café, NAÏVE über-cool") == ["cafe", "naive", "uber", "cool"])
        #expect(SearchWords.query("it's", all: true) == "'it' & 's'")
    }
}
