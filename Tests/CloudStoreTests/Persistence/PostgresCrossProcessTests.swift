import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CloudStore

/// Two stores on one PostgreSQL database stand for two `cumulus` processes: what one commits
/// reaches the other's caches and waiters by notification, not only by the caches' second.
@Suite(.enabled(if: TestBackend.isDefaultRun, "Runs against PostgreSQL itself, once, in the default run"))
struct PostgresCrossProcessTests {
    let database: TestDatabase
    let first: CloudStore
    let second: CloudStore
    let container = try! ContainerIdentifier("iCloud.com.example.Shared")

    init() throws {
        database = try TestPostgres.makeDatabase()
        first = try database.process()
        second = try database.process()
        try first.createContainer(container)
        for store in [first, second] { try waitUntil { store.hearsOtherProcesses } }
    }

    @Test func notificationsQueuedInOneProcessWakeTheOthersWaiters() throws {
        let heard = Mutex<Set<String>>([])
        first.onNotificationsQueued { tokens in heard.withLock { $0.formUnion(tokens) } }
        second.notificationsQueued(["token-a", "token-b"])
        try waitUntil { heard.withLock { $0 } == ["token-a", "token-b"] }
    }

    @Test func aRevokedTokenIsRefusedByTheOtherProcessOnceItHearsOfIt() throws {
        let token = try first.createAPIToken(container, .development)
        #expect(try second.apiToken(token.token) == token)
        try first.revokeAPIToken(token.token)
        // Well within the second the cache would otherwise be trusted for.
        try waitUntil { try second.apiToken(token.token) == nil }
        #expect(second.readinessProblem() == nil)
    }

    @Test func aSchemaChangedInOneProcessIsUsedByTheOther() throws {
        #expect(try second.schema(container, .development).recordType("Late") == nil)
        try first.createRecordType("Late", in: container, .development)
        try waitUntil { try second.schema(container, .development).recordType("Late") != nil }
        let created = try second.database(container, .development, .public, as: .operator()).create("Late", "r1")
        #expect(created.recordType == "Late")
    }

    @Test func aLostListeningConnectionMakesEveryWaiterReadAgain() throws {
        let rechecks = Atomic<Int>(0)
        first.onNotificationsMayHaveBeenMissed { rechecks.add(1, ordering: .relaxed) }
        try RawPostgres(url: database.url).execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '\(PostgresListener.applicationName)' AND datname = current_database()"
        )
        try waitUntil { rechecks.load(ordering: .relaxed) >= 1 && first.hearsOtherProcesses }
    }

    @Test func aProcessStartingOnAnotherClusterExpiresEveryEarlierChangeToken() throws {
        let public1 = try first.database(container, .development, .public, as: .operator())
        try public1.create("Note", "n1")
        let token = try public1.zoneChanges(syncToken: nil).syncToken
        // Recorded as issued on another cluster: a restore elsewhere, or the old timeline of a
        // standby since promoted. A process starting now must not continue those sequences.
        try RawPostgres(url: database.url).execute("UPDATE catalog.settings SET cluster_identity = '1/1'")
        let restarted = try database.process()
        let public2 = try restarted.database(container, .development, .public, as: .operator())
        do {
            _ = try public2.zoneChanges(syncToken: token)
            Issue.record("a token from the old cluster was accepted")
        } catch CloudStoreError.changeTokenExpired {}
        // On the same cluster, the next process keeps the tokens it finds.
        let fresh = try public2.zoneChanges(syncToken: nil).syncToken
        let again = try database.process()
        #expect(try again.database(container, .development, .public, as: .operator()).zoneChanges(syncToken: fresh).records.isEmpty)
    }
}
