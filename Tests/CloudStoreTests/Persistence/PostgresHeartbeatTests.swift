import Foundation
import TestSupport
import Testing

@testable import CloudStore

/// Stores on one PostgreSQL database stand for `cumulus serve` processes: each beats, counts the
/// processes whose beat is recent, and admits that share of every environment's request rate.
@Suite(.enabled(if: TestBackend.isDefaultRun, "Runs against PostgreSQL itself, once, in the default run"))
struct PostgresHeartbeatTests {
    let database: TestDatabase
    let container = try! ContainerIdentifier("iCloud.com.example.Shares")
    /// The time every store here reads: buckets refill only when a test says so.
    static let frozen: Int64 = 1_700_000_000_000

    init() throws {
        database = try TestPostgres.makeDatabase()
    }

    func process() throws -> CloudStore {
        try database.process { $0.clock = { Self.frozen } }
    }

    /// Every store beats once more, so that each has counted the others.
    static func beat(_ stores: [CloudStore]) throws {
        for store in stores { try #require(store.backend.heartbeat).beat() }
    }

    /// The database's time in milliseconds, as the beats write it.
    func databaseNow() throws -> Int64 {
        try #require(Int64(RawPostgres(url: database.url).execute("SELECT (extract(epoch FROM now()) * 1000)::bigint")[0][0]))
    }

    @Test func twoAndThenThreeProcessesEachCountTheOthersOnceTheyBeat() throws {
        let first = try process()
        #expect(first.liveProcessCount == 1)
        let second = try process()
        #expect(second.liveProcessCount == 2, "its first beat, at start, saw the first's row")
        try Self.beat([first])
        #expect(first.liveProcessCount == 2)
        let third = try process()
        try Self.beat([first, second])
        #expect([first, second, third].map(\.liveProcessCount) == [3, 3, 3])

        let rows = try RawPostgres(url: database.url).execute("SELECT id, host, pid FROM catalog.processes ORDER BY id")
        #expect(Set(rows.map { $0[0] }) == Set([first, second, third].map { $0.backend.heartbeat!.id }))
        #expect(rows.allSatisfy { !$0[1].isEmpty && $0[2] == String(getpid()) }, "host and pid for operators")
    }

    @Test func aClosedProcessStopsCountingAtTheOthersNextBeat() throws {
        let first = try process()
        var second: CloudStore? = try process()
        try Self.beat([first])
        #expect(first.liveProcessCount == 2)
        let id = try #require(second?.backend.heartbeat?.id)
        second = nil
        #expect(
            try RawPostgres(url: database.url).execute("SELECT count(*) FROM catalog.processes WHERE id = '\(id)'") == [["0"]],
            "a clean shutdown deletes its row")
        try Self.beat([first])
        #expect(first.liveProcessCount == 1)
    }

    @Test func aProcessWhoseBeatStoppedCountsOnlyWithinTheWindow() throws {
        let first = try process()
        let window = first.backend.heartbeat!.interval * PostgresHeartbeat.liveIntervals
        let now = try databaseNow()
        // Processes that died without deleting their rows, a while ago and just now; and one
        // gone so long that its row is forgotten.
        try RawPostgres(url: database.url).execute(
            """
            INSERT INTO catalog.processes(id, host, pid, started, last_beat) VALUES
                ('stale', 'elsewhere', 1, 0, \(now - window - 1_000)),
                ('recent', 'elsewhere', 2, 0, \(now - 1_000)),
                ('forgotten', 'elsewhere', 3, 0, \(now - PostgresHeartbeat.forgetAfter - 60_000))
            """)
        try Self.beat([first])
        #expect(first.liveProcessCount == 2, "the recent one counts, the stale one does not")
        try RawPostgres(url: database.url).execute("UPDATE catalog.processes SET last_beat = \(now - window - 1_000) WHERE id = 'recent'")
        try Self.beat([first])
        #expect(first.liveProcessCount == 1, "past the window it stops counting")
        let left = try RawPostgres(url: database.url).execute("SELECT id FROM catalog.processes ORDER BY id").map { $0[0] }
        #expect(left.sorted() == [first.backend.heartbeat!.id, "recent", "stale"].sorted(), "the long dead row was forgotten")
    }

    @Test func eachOfTwoProcessesAdmitsHalfTheBurstAndOfThreeAThird() throws {
        let first = try process()
        let second = try process()
        try first.createContainer(container)
        try first.setLimits(EnvironmentLimits(requestsPerSecond: 1, burst: 10), of: container, .development)
        try first.setLimits(EnvironmentLimits(requestsPerSecond: 1, burst: 10), of: container, .production)
        try Self.beat([first, second])

        for store in [first, second] {
            #expect(Self.admitted(store, container, .development) == 5)
        }
        let third = try process()
        try Self.beat([first, second, third])
        for store in [first, second, third] {
            #expect(Self.admitted(store, container, .production) == 3)
        }
    }

    /// How many requests in a row `store` admits before the first THROTTLED.
    static func admitted(_ store: CloudStore, _ container: ContainerIdentifier, _ environment: Environment) -> Int {
        var admitted = 0
        while admitted < 1_000 {
            do {
                try store.admitRequest(to: container, environment)
                admitted += 1
            } catch CloudStoreError.throttled {
                break
            } catch {
                Issue.record("admitting failed otherwise: \(error)")
                break
            }
        }
        return admitted
    }
}
