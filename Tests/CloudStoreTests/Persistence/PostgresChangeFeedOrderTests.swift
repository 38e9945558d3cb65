import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CloudStore

/// The change feed's order with writers in several processes on one PostgreSQL database: a
/// reader paging through a zone's log by "after n" never misses a commit (decision 3), with the
/// counter row taken last; the naive scheme, a sequence taken at insert, is caught missing some.
@Suite(.enabled(if: TestBackend.isDefaultRun, "Runs against PostgreSQL itself, once, in the default run"))
struct PostgresChangeFeedOrderTests {
    let database: TestDatabase
    static let schema = PostgresIdentifier.quote("env")

    init() throws {
        database = try TestPostgres.makeDatabase()
        let connection = try PostgresConnection(url: database.url)
        try PostgresEnvironmentMigrations.migrator.migrate(connection, schema: "env")
        try connection.executeScript(
            """
            INSERT INTO env.zones(zone, scope, owner, name, created) SELECT z, 0, '', 'z' || z, 0 FROM generate_series(1, 64) AS z;
            CREATE SEQUENCE env.naive_seq;
            """)
    }

    /// A writer process: its own connections and write queue.
    func process(_ numbering: PostgresChangeLog.Numbering = .counterRow) -> PostgresWriteQueue {
        PostgresWriteQueue(
            pool: PostgresPool(url: database.url), changeLog: PostgresChangeLog(schema: Self.schema, numbering: numbering), name: "test")
    }

    func reader() throws -> (PostgresConnection, PostgresChangeLog) {
        (try PostgresConnection(url: database.url), PostgresChangeLog(schema: Self.schema))
    }

    static func entry(_ name: String, _ kind: ChangeEntry.Kind = .created) -> PostgresChangeLog.Entry {
        PostgresChangeLog.Entry(recordName: name, typeID: 1, kind: kind, creator: "_u", time: 1, tree: nil)
    }

    /// Waits until some backend waits on a lock: the second writer has reached the counter row.
    func waitForLockWaiter(_ raw: RawPostgres) throws {
        for _ in 0..<500 {
            let waiting = try raw.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()")
            if waiting[0][0] != "0" { return }
            usleep(10_000)
        }
        throw TestFailure("no writer came to wait on the zone's counter row")
    }

    @Test func aLaterWriterToTheZoneCommitsOnlyAfterTheOneHoldingItsPosition() throws {
        let holder = try RawPostgres(url: database.url)
        // T1 has taken zone 1's next position (its last statement ran) and has not committed.
        try holder.execute(
            """
            BEGIN;
            WITH c AS (UPDATE env.zones SET last_seq = last_seq + 1 WHERE zone = 1 RETURNING last_seq)
            INSERT INTO env.changes(zone, seq, name, type, kind) SELECT 1, c.last_seq, 't1', 1, 1 FROM c;
            """)
        let writer = process()
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<Int, any Error>?>(nil)
        writer.enqueue({ transaction in try transaction.appendChange(Self.entry("t2"), zone: 1) }) { result in
            outcome.withLock { $0 = result.map { 0 } }
            done.signal()
        }
        let observer = try RawPostgres(url: database.url)
        try waitForLockWaiter(observer)
        let (connection, log) = try reader()
        // T2 waits on the counter row: no reader sees T2's change without T1's, nor either yet.
        #expect(try log.changes(zone: 1, after: 0, limit: 10, on: connection).isEmpty)
        #expect(outcome.withLock { $0 } == nil)
        try holder.execute("COMMIT")
        done.wait()
        #expect(throws: Never.self) { try outcome.withLock { $0 }!.get() }
        #expect(
            try log.changes(zone: 1, after: 0, limit: 10, on: connection).map { "\($0.sequence):\($0.entry.recordName)" } == [
                "1:t1", "2:t2",
            ])
        #expect(try log.lastSequence(zone: 1, on: connection) == 2)
    }

    @Test func theCheckerCatchesTheNaiveSchemeSkippingACommit() throws {
        let holder = try RawPostgres(url: database.url)
        // T1 takes sequence 1 at insert and stays open; T2 takes 2 and commits at once.
        try holder.execute("BEGIN; INSERT INTO env.changes(zone, seq, name, type, kind) VALUES (1, nextval('env.naive_seq'), 't1', 1, 1)")
        let writer = process(.naiveSequence(hold: 0))
        try writer.submit { try $0.appendChange(Self.entry("t2"), zone: 1) }
        let (connection, log) = try reader()
        var copy = FeedCopy()
        copy.read(try log.changes(zone: 1, after: copy.token(1), limit: 10, on: connection), zone: 1)
        try holder.execute("COMMIT")
        copy.read(try log.changes(zone: 1, after: copy.token(1), limit: 10, on: connection), zone: 1)
        let server = try log.changes(zone: 1, after: 0, limit: 100, on: connection)
        #expect(copy.problems(against: [1: server]).contains("zone 1: the reader missed t1"))
    }

    @Test(arguments: [1, 64])
    func concurrentWritersInTwoProcessesSkipNothing(zones: Int) throws {
        let result = try runConcurrently(numbering: .counterRow, zones: zones, jobsPerWriter: 100)
        #expect(result.problems.isEmpty, "\(result.problems.prefix(5))")
        #expect(result.entries > 0)
        // Dense per zone: each zone's counter equals its number of changes.
        let (connection, log) = try reader()
        for zone in 1...Int64(zones) {
            let count = try connection.execute("SELECT count(*) FROM env.changes WHERE zone = $1", [.integer(zone)]).scalarInteger()
            #expect(try log.lastSequence(zone: zone, on: connection) == count)
        }
    }

    @Test func theSameCheckerReportsSkipsOfTheNaiveScheme() throws {
        // Skips need a reader to land between two commits in the wrong order: rounds run until
        // one does, which in practice is the first.
        var problems: [String] = []
        for _ in 0..<20 where problems.isEmpty {
            problems = try runConcurrently(numbering: .naiveSequence(hold: 0), zones: 1, jobsPerWriter: 60, holdMicroseconds: 500).problems
            try RawPostgres(url: database.url).execute("TRUNCATE env.changes")
        }
        #expect(problems.contains { $0.contains("missed") })
    }

    @Test func aGroupHoldsNoMoreJobsThanPostgreSQLKeepsSubtransactionsOfInMemory() throws {
        let holder = try RawPostgres(url: database.url)
        try holder.execute("BEGIN; UPDATE env.zones SET last_seq = last_seq WHERE zone = 1")
        let writer = process()
        let done = DispatchSemaphore(value: 0)
        // The first job's group waits on zone 1's counter while 150 more queue behind it.
        writer.enqueue({ try $0.appendChange(Self.entry("first"), zone: 1) }) { _ in done.signal() }
        try waitForLockWaiter(try RawPostgres(url: database.url))
        for index in 0..<150 {
            writer.enqueue({ try $0.appendChange(Self.entry("j\(index)"), zone: 2) }) { _ in done.signal() }
        }
        try holder.execute("COMMIT")
        for _ in 0...150 { done.wait() }
        let statistics = writer.statistics
        #expect(statistics.jobs == 151)
        #expect(statistics.largestGroup == PostgresWriteQueue.Core.maximumGroup)
        #expect(PostgresWriteQueue.Core.maximumGroup <= 64)
    }

    @Test func aLongTransactionElsewhereDelaysNoOtherZone() throws {
        let long = try RawPostgres(url: database.url)
        // A transaction holding zone 2's counter and open for as long as the test wants.
        try long.execute("BEGIN; UPDATE env.zones SET last_seq = last_seq WHERE zone = 2")
        let writer = process()
        try writer.submit { transaction in
            try transaction.appendChange(Self.entry("a"), zone: 1)
            try transaction.appendChange(Self.entry("b"), zone: 3)
        }
        let (connection, log) = try reader()
        #expect(try log.changes(zone: 1, after: 0, limit: 10, on: connection).map(\.entry.recordName) == ["a"])
        #expect(try log.changes(zone: 3, after: 0, limit: 10, on: connection).map(\.entry.recordName) == ["b"])
        try long.execute("ROLLBACK")
    }

    @Test func multiZoneWritesFrom64WritersNeverDeadlock() throws {
        let writers = (0..<64).map { _ in process() }
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 64) { index in
            var random = SeededGenerator(seed: UInt64(index + 1))
            for job in 0..<20 {
                // Zones in a random order: the counters are still taken in ascending order.
                let zones = (0..<(2 + Int(random.next() % 5))).map { _ in Int64(1 + random.next() % 8) }
                do {
                    try writers[index].submit { transaction in
                        for zone in zones { try transaction.appendChange(Self.entry("w\(index)-\(job)"), zone: zone) }
                        transaction.touchZoneLog(.init(scope: 1, owner: "u\(zones[0] % 3)", name: "z\(zones[0])"), deleted: false, time: 1)
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let (connection, log) = try reader()
        var total: Int64 = 0
        for zone in Int64(1)...8 {
            let entries = try log.changes(zone: zone, after: 0, limit: 100_000, on: connection)
            #expect(entries.map(\.sequence) == Array(1...Int64(max(entries.count, 1))).prefix(entries.count).map { $0 })
            total += Int64(entries.count)
        }
        #expect(total > 64 * 20 * 2 - 1)
        for owner in ["u0", "u1", "u2"] {
            let last = try log.lastZoneLogSequence(scope: 1, owner: owner, on: connection)
            let rows = try log.zoneLog(scope: 1, owner: owner, after: 0, limit: 100, on: connection)
            #expect(rows.map(\.sequence).last == last)
        }
    }

    // MARK: - The checker

    /// What one reader copied of each zone's feed, by following it with small pages.
    struct FeedCopy {
        var seen: [Int64: [PostgresChangeLog.StoredEntry]] = [:]

        func token(_ zone: Int64) -> Int64 { seen[zone]?.last?.sequence ?? 0 }

        mutating func read(_ page: [PostgresChangeLog.StoredEntry], zone: Int64) {
            seen[zone, default: []] += page
        }

        /// How the copy differs from the server's log: entries missed, repeated, out of order.
        func problems(against server: [Int64: [PostgresChangeLog.StoredEntry]]) -> [String] {
            var problems: [String] = []
            for (zone, log) in server {
                let copy = seen[zone] ?? []
                if copy != log {
                    let copied = Set(copy)
                    for entry in log where !copied.contains(entry) {
                        problems.append("zone \(zone): the reader missed \(entry.entry.recordName)")
                    }
                    if Set(copy).count != copy.count { problems.append("zone \(zone): the reader saw an entry twice") }
                    if copy.map(\.sequence) != copy.map(\.sequence).sorted() { problems.append("zone \(zone): out of order") }
                    if problems.isEmpty { problems.append("zone \(zone): the copy differs") }
                }
            }
            return problems
        }
    }

    /// Two writer processes, four writers each, appending to `zones` zones while three readers
    /// follow every zone's feed with pages of 3; then the readers drain and are checked.
    func runConcurrently(
        numbering: PostgresChangeLog.Numbering, zones: Int, jobsPerWriter: Int, holdMicroseconds: UInt32 = 0
    ) throws -> (problems: [String], entries: Int) {
        let processes = [process(numbering), process(numbering)]
        let writing = Atomic<Int>(8)
        let copies = Mutex<[FeedCopy]>([])
        let group = DispatchGroup()
        for _ in 0..<3 {
            DispatchQueue.global().async(group: group) {
                guard let (connection, log) = try? self.reader() else { return }
                var copy = FeedCopy()
                var draining = false
                while true {
                    var any = false
                    for zone in 1...Int64(zones) {
                        if let page = try? log.changes(zone: zone, after: copy.token(zone), limit: 3, on: connection), !page.isEmpty {
                            copy.read(page, zone: zone)
                            any = true
                        }
                    }
                    if draining && !any { break }
                    if writing.load(ordering: .acquiring) == 0 { draining = true }
                    // Readers that find nothing new yield to the writers (the machine may have
                    // fewer cores than there are threads here).
                    if !any { usleep(200) }
                }
                copies.withLock { $0.append(copy) }
            }
        }
        let failures = Mutex<[String]>([])
        for writer in 0..<8 {
            DispatchQueue.global().async(group: group) {
                defer { writing.subtract(1, ordering: .releasing) }
                var random = SeededGenerator(seed: UInt64(writer + 100))
                let kinds: [ChangeEntry.Kind] = [.created, .updated, .deleted]
                for job in 0..<jobsPerWriter {
                    let zone = Int64(1 + Int(random.next() % UInt64(zones)))
                    let count = 1 + Int(random.next() % 3)
                    let kind = kinds[Int(random.next() % 3)]
                    do {
                        try processes[writer % 2].submit { transaction in
                            for item in 0..<count {
                                try transaction.appendChange(Self.entry("w\(writer)-\(job)-\(item)", kind), zone: zone)
                            }
                            if holdMicroseconds > 0 { usleep(holdMicroseconds) }
                        }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
        }
        group.wait()
        var problems = failures.withLock { $0 }
        let (connection, log) = try reader()
        var server: [Int64: [PostgresChangeLog.StoredEntry]] = [:]
        var entries = 0
        for zone in 1...Int64(zones) {
            server[zone] = try log.changes(zone: zone, after: 0, limit: 1_000_000, on: connection)
            entries += server[zone]!.count
        }
        for copy in copies.withLock({ $0 }) { problems += copy.problems(against: server) }
        #expect(copies.withLock { $0.count } == 3)
        return (problems, entries)
    }
}
