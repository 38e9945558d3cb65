import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CloudStore

/// Courier polls for one push token waiting in two processes on one PostgreSQL database: each
/// queued notification is claimed by exactly one of them, in its token's order.
@Suite(.enabled(if: TestBackend.isDefaultRun, "Runs against PostgreSQL itself, once, in the default run"))
struct PostgresNotificationClaimTests {
    let database: TestDatabase
    let first: CloudStore
    let second: CloudStore
    let container = try! ContainerIdentifier("iCloud.com.example.Claims")

    init() throws {
        database = try TestPostgres.makeDatabase()
        first = try database.process()
        second = try database.process()
        try first.createContainer(container)
    }

    /// A push token of alice's, as `tokens/create` makes it.
    func pushToken(_ name: String) throws -> PushToken {
        let token = PushToken(
            token: name, container: container, environment: .development, apnsEnvironment: "development", userRecordName: "_alice",
            created: 0,
            lastUsed: Int64(Date().timeIntervalSince1970 * 1000))
        try first.credentials.insertPushToken(token)
        return token
    }

    /// Queues notifications `0..<count` for alice, named by number, in that order.
    func queue(_ count: Int) throws {
        let expires = Int64(Date().timeIntervalSince1970 * 1000) + 24 * 60 * 60 * 1000
        try first.environment(container, .development).write { writer in
            for number in 0..<count {
                let notification = QueuedNotification(
                    notificationID: String(number), subscriptionID: "all", container: container, environment: .development,
                    userRecordName: "_alice", databaseScope: .public, reason: .database, notificationInfo: nil, created: 0)
                try writer.enqueue(notification, expires: expires)
            }
        }
    }

    @Test func claimsFromManyThreadsOfTwoProcessesTakeEveryEntryOnceInOrder() throws {
        let tokens = try (0..<4).map { try pushToken("token-\($0)") }
        let perToken = 150
        try queue(perToken)

        // What each claimer got, per token, in the order it got them.
        let claimers = 6
        let got = Mutex<[[String: [Int]]]>(Array(repeating: [:], count: claimers))
        let failures = Mutex<[String]>([])
        let deadline = Date().addingTimeInterval(60)
        DispatchQueue.concurrentPerform(iterations: claimers) { claimer in
            // Half the claimers in each process, all asking for every token at once.
            let store = claimer % 2 == 0 ? first : second
            do {
                while Date() < deadline {
                    let claimed = try store.claimNotifications(for: tokens)
                    if claimed.isEmpty {
                        // Empty may only mean that the rest is held by other claimers' open transactions.
                        if try store.queuedNotificationCounts(container, .development).isEmpty { return }
                        continue
                    }
                    got.withLock { got in
                        for (token, delivery) in claimed {
                            got[claimer][token, default: []].append(Int(delivery.notification.notificationID)!)
                        }
                    }
                }
                failures.withLock { $0.append("claimer \(claimer) ran out of time") }
            } catch {
                failures.withLock { $0.append("claimer \(claimer): \(error)") }
            }
        }

        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let byClaimer = got.withLock { $0 }
        for token in tokens {
            let all = byClaimer.flatMap { $0[token.token] ?? [] }
            #expect(all.count == perToken, "\(token.token): every entry claimed once, none twice")
            #expect(all.sorted() == Array(0..<perToken), "\(token.token): the union is everything queued")
            for (claimer, claimed) in byClaimer.enumerated() {
                let mine = claimed[token.token] ?? []
                #expect(mine == mine.sorted(), "claimer \(claimer) got \(token.token)'s entries out of order")
            }
        }
        #expect(try first.queuedNotificationCounts(container, .development).isEmpty)
    }

    @Test func aClaimOfTheSameTokenWaitsForAnotherAndTakesTheNextEntry() throws {
        let token = try pushToken("held")
        try queue(3)
        let schema = PostgresStorageBackend.environmentSchema(container, .development)
        let lock = "SELECT pg_advisory_xact_lock(hashtextextended('cumulus.courier:held', 0))"
        let handOut = "INSERT INTO \(schema).notification_deliveries(token, id) SELECT 'held', min(id) FROM \(schema).notifications"
        // Another process's claim that died before committing: the entry stays queued.
        let other = try RawPostgres(url: database.url)
        try other.execute("BEGIN")
        try other.execute(lock)
        try other.execute(handOut)
        try other.execute("ROLLBACK")

        // Another process's claim, open between taking the token's lock and its COMMIT: this
        // claim waits for it, then takes the next entry rather than the same one.
        try other.execute("BEGIN")
        try other.execute(lock)
        try other.execute(handOut)
        let next = Mutex<Result<NotificationDelivery?, any Error>?>(nil)
        let claimed = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { [second] in
            let result = Result { try second.claimNotifications(for: [token])[token.token] }
            next.withLock { $0 = result }
            claimed.signal()
        }
        try other.execute("COMMIT")
        claimed.wait()
        let taken = try #require(try next.withLock { $0 }?.get())
        #expect(taken.notification.notificationID == "1", "the entry the other claim took is not taken twice")

        // A put-back from one process wakes the other's waiters, who claim it, in its place.
        let heard = Mutex<Set<String>>([])
        first.onNotificationsQueued { tokens in heard.withLock { $0.formUnion(tokens) } }
        try waitUntil { first.hearsOtherProcesses }
        try second.returnNotifications([taken])
        try waitUntil { heard.withLock { $0 } == [token.token] }
        let again = try #require(try first.claimNotifications(for: [token])[token.token])
        #expect(again.notification.notificationID == "1")
        #expect(try second.claimNotifications(for: [token])[token.token]?.notification.notificationID == "2")
        #expect(try first.claimNotifications(for: [token]).isEmpty)
    }
}
