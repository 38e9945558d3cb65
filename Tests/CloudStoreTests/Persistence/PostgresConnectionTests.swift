import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CloudStore

/// The thin libpq layer, against a real PostgreSQL server.
@Suite(.enabled(if: TestBackend.isDefaultRun, "Runs against PostgreSQL itself, once, in the default run")) struct PostgresConnectionTests {
    let database: TestDatabase
    init() throws { database = try TestPostgres.makeDatabase() }

    @Test func valuesRoundTripExactly() throws {
        let connection = try PostgresConnection(url: database.url)
        let everyByte = (0...255).map(UInt8.init) + [0, 0]
        let row = try connection.execute(
            "SELECT $1::bigint, $2::text, $3::bytea, $4::boolean, $5::double precision, $6::text IS NULL, $7::integer, $8::smallint",
            [
                .integer(Int64.min), .text("zoë ✓ 'quoted' \\ \"x\""), .bytes(everyByte), .bool(true), .double(-0.1), .null, .integer(-7),
                .integer(-2),
            ])
        #expect(row.count == 1)
        #expect(row[0].integer(0) == Int64.min)
        #expect(row[0].text(1) == "zoë ✓ 'quoted' \\ \"x\"")
        #expect(row[0].blob(2) == everyByte)
        #expect(row[0].bool(3))
        #expect(row[0].double(4) == -0.1)
        #expect(row[0].bool(5))
        #expect(row[0].integer(6) == -7)
        #expect(row[0].integer(7) == -2)
        let empty = try connection.execute("SELECT $1::bytea, $2::text", [.bytes([]), .text("")])
        #expect(empty[0].blob(0) == [])
        #expect(!empty[0].isNull(0))
        #expect(empty[0].text(1) == "")
    }

    @Test func aPreparedStatementServesLaterValues() throws {
        let connection = try PostgresConnection(url: database.url)
        try connection.executeScript("CREATE TABLE t(k bigint PRIMARY KEY, v text NOT NULL)")
        for key in 1...50 { try connection.execute("INSERT INTO t(k, v) VALUES ($1, $2)", [.integer(key), .text("v\(key)")]) }
        let rows = try connection.execute("SELECT k, v FROM t WHERE k > $1 ORDER BY k", [.integer(47)])
        #expect(rows.map { "\($0.integer(0))=\($0.text(1))" } == ["48=v48", "49=v49", "50=v50"])
        #expect(try connection.execute("UPDATE t SET v = 'x' WHERE k <= $1", [.integer(10)]).affectedRows == 10)
    }

    @Test func errorsAreTypedAndMappedWithoutTheStatementReachingClients() throws {
        let connection = try PostgresConnection(url: database.url)
        try connection.executeScript("CREATE TABLE t(k bigint PRIMARY KEY)")
        try connection.execute("INSERT INTO t(k) VALUES ($1)", [.integer(1)])
        do {
            try connection.execute("INSERT INTO t(k) VALUES ($1)", [.integer(1)])
            Issue.record("a duplicate key was accepted")
        } catch {
            #expect(error.isUniqueViolation)
            #expect(error.sqlState == "23505")
        }
        #expect(
            PostgresError(sqlState: "40001", message: "x").cloudStoreError
                == .tryAgainLater("The database is busy or unreachable; try again"))
        #expect(PostgresError(sqlState: "40P01", message: "x").isRetryable)
        #expect(PostgresError(sqlState: "53100", message: "x").cloudStoreError == .quotaExceeded("The database is full"))
        if case .internalError = PostgresError(sqlState: "42601", message: "syntax").cloudStoreError {
        } else {
            Issue.record("a syntax error should be internal")
        }
    }

    @Test func aFailedConnectionNamesNoPassword() throws {
        let secret = "s3cr3t-Pa55word"
        let url = try TestPostgres.serverURL().replacingOccurrences(of: "cumulus@", with: "nobody_here:\(secret)@")
        do {
            _ = try PostgresConnection(url: url)
            Issue.record("connected as a role that does not exist")
        } catch {
            #expect(!error.description.contains(secret))
            #expect(error.description.contains("nobody_here"))
        }
    }

    @Test func aPipelineSendsTheLastStatementAndCommitInOneGo() throws {
        let connection = try PostgresConnection(url: database.url)
        try connection.executeScript("CREATE TABLE counters(k bigint PRIMARY KEY, n bigint NOT NULL); INSERT INTO counters VALUES (1, 10)")
        try connection.begin()
        let results = try connection.pipeline([
            (sql: "UPDATE counters SET n = n + $1 WHERE k = $2 RETURNING n", values: [.integer(5), .integer(1)]),
            (sql: "COMMIT", values: []),
        ])
        #expect(results.first?.scalarInteger() == 15)
        #expect(!connection.inTransaction)
        let other = try PostgresConnection(url: database.url)
        #expect(try other.execute("SELECT n FROM counters WHERE k = $1", [.integer(1)]).scalarInteger() == 15)

        // A failing statement skips the COMMIT behind it: nothing of the transaction stays.
        try connection.begin()
        try connection.execute("UPDATE counters SET n = 99 WHERE k = $1", [.integer(1)])
        #expect(throws: PostgresError.self) {
            try connection.pipeline([
                (sql: "UPDATE counters SET n = n / $1 WHERE k = $2 RETURNING n", values: [.integer(0), .integer(1)]),
                (sql: "COMMIT", values: []),
            ])
        }
        #expect(connection.inTransaction)
        connection.rollback()
        #expect(try other.execute("SELECT n FROM counters WHERE k = $1", [.integer(1)]).scalarInteger() == 15)
    }

    @Test func aSavepointUndoesOnlyItsOwnWork() throws {
        let connection = try PostgresConnection(url: database.url)
        try connection.executeScript("CREATE TABLE t(k bigint PRIMARY KEY)")
        try connection.transaction {
            try connection.execute("INSERT INTO t(k) VALUES ($1)", [.integer(1)])
            _ = try? connection.savepoint {
                try connection.execute("INSERT INTO t(k) VALUES ($1)", [.integer(2)])
                try connection.execute("INSERT INTO t(k) VALUES ($1)", [.integer(1)])
            }
            try connection.execute("INSERT INTO t(k) VALUES ($1)", [.integer(3)])
        }
        #expect(try connection.execute("SELECT k FROM t ORDER BY k").map { $0.integer(0) } == [1, 3])
    }

    @Test func notificationsArriveOnTheListeningConnection() throws {
        let listener = try PostgresConnection(url: database.url)
        try listener.executeScript("LISTEN zones")
        let sender = try PostgresConnection(url: database.url)
        try sender.execute("SELECT pg_notify('zones', $1)", [.text("a,b")])
        try sender.execute("SELECT pg_notify('other', $1)", [.text("ignored")])
        var received: [PostgresConnection.Notification] = []
        for _ in 0..<100 where received.isEmpty {
            var descriptor = pollfd(fd: listener.socket, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, 100)
            received += try listener.takeNotifications()
        }
        #expect(received == [PostgresConnection.Notification(channel: "zones", payload: "a,b")])
    }

    @Test func thePoolDropsAConnectionTheServerKilled() throws {
        let pool = PostgresPool(url: database.url, maximumIdle: 1)
        let pid = try pool.withConnection { try $0.execute("SELECT pg_backend_pid()").scalarInteger() }
        try RawPostgres(url: database.url).execute("SELECT pg_terminate_backend(\(pid!))")
        #expect(throws: PostgresError.self) { try pool.withConnection { try $0.execute("SELECT 1") } }
        let next = try pool.withConnection { try $0.execute("SELECT pg_backend_pid()").scalarInteger() }
        #expect(next != nil && next != pid)
    }
}

/// Migrations of a PostgreSQL schema.
@Suite(.enabled(if: TestBackend.isDefaultRun, "Runs against PostgreSQL itself, once, in the default run")) struct PostgresMigratorTests {
    let database: TestDatabase
    init() throws { database = try TestPostgres.makeDatabase() }

    static let migrator = PostgresMigrator(migrations: [
        "CREATE TABLE {schema}.t(k bigint PRIMARY KEY, v text NOT NULL)",
        "ALTER TABLE {schema}.t ADD COLUMN w bigint NOT NULL DEFAULT 7",
    ])

    @Test func migrationsRunOnceEachEvenFromProcessesStartingTogether() throws {
        let counts = Mutex<[Int]>([])
        let url = database.url
        DispatchQueue.concurrentPerform(iterations: 6) { _ in
            let ran = (try? Self.migrator.migrate(PostgresConnection(url: url), schema: "env 1")) ?? -1
            counts.withLock { $0.append(ran) }
        }
        #expect(counts.withLock { $0.sorted() } == [0, 0, 0, 0, 0, 2])
        let connection = try PostgresConnection(url: url)
        #expect(try PostgresMigrator.version(of: "env 1", on: connection) == 2)
        #expect(try PostgresMigrator.version(of: "absent", on: connection) == 0)
        try connection.execute("INSERT INTO \"env 1\".t(k, v) VALUES ($1, $2)", [.integer(1), .text("a")])
        #expect(try connection.execute("SELECT w FROM \"env 1\".t").scalarInteger() == 7)
    }

    @Test func aFailedMigrationLeavesTheSchemaAsItWas() throws {
        let connection = try PostgresConnection(url: database.url)
        try Self.migrator.migrate(connection, schema: "s")
        let broken = PostgresMigrator(
            migrations: Self.migrator.migrations + [
                "CREATE TABLE {schema}.u(k bigint); SELECT 1/0"
            ])
        #expect(throws: PostgresError.self) { try broken.migrate(connection, schema: "s") }
        #expect(try PostgresMigrator.version(of: "s", on: connection) == 2)
        #expect(try connection.execute("SELECT 1 FROM pg_tables WHERE schemaname = 's' AND tablename = 'u'").count == 0)
        let newer = PostgresMigrator(migrations: [Self.migrator.migrations[0]])
        #expect(throws: CloudStoreError.self) { try newer.migrate(connection, schema: "s") }
    }
}
