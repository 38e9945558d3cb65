import Foundation
import Synchronization
import Testing
import TestSupport
@testable import CloudStore

/// Courier polls for one push token waiting in two processes on one PostgreSQL database: each
/// queued notification is claimed by exactly one of them, in its token's order.
@Suite(.enabled(if: TestBackend.isSQLite, "Runs against PostgreSQL itself, once, in the default run"))
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

    func pushToken(_ name: String) -> PushToken {
        PushToken(token: name, container: container, environment: .development, apnsEnvironment: "development", userRecordName: nil, created: 0)
    }

    /// Queues notifications `0..<count`, named by number, for every token, in that order.
    func queue(_ count: Int, for tokens: [PushToken]) throws {
        let expires = Int64(Date().timeIntervalSince1970 * 1000) + 24 * 60 * 60 * 1000
        try first.environment(container, .development).write { writer in
            for number in 0..<count {
                let notification = QueuedNotification(
                    notificationID: String(number), subscriptionID: "all", container: container, environment: .development,
                    userRecordName: "_alice", databaseScope: .public, reason: .database, notificationInfo: nil, created: 0)
                try writer.enqueue(notification, for: tokens.map(\.token), expires: expires)
            }
        }
    }

    @Test func claimsFromManyThreadsOfTwoProcessesTakeEveryEntryOnceInOrder() throws {
        let tokens = (0..<4).map { pushToken("token-\($0)") }
        let perToken = 150
        try queue(perToken, for: tokens)

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
                        for (token, delivery) in claimed { got[claimer][token, default: []].append(Int(delivery.notification.notificationID)!) }
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

    @Test func anEntryAnotherTransactionHoldsIsSkippedNotWaitedForNorTakenTwice() throws {
        let token = pushToken("held")
        try queue(3, for: [token])
        let schema = CloudStore.environmentSchema(container, .development)
        // Another process's claim, open between its DELETE and its COMMIT.
        let other = try RawPostgres(url: database.url)
        try other.execute("BEGIN")
        let held = try other.execute("DELETE FROM \(schema).notifications WHERE id = (SELECT min(id) FROM \(schema).notifications) RETURNING id")
        #expect(held.count == 1)

        let next = try #require(try second.claimNotifications(for: [token])[token.token])
        #expect(next.notification.notificationID == "1", "the held entry is skipped, the next one taken")
        try other.execute("ROLLBACK")
        // The other claim gave up (its process died before committing): the entry is back first.
        let back = try #require(try first.claimNotifications(for: [token])[token.token])
        #expect(back.notification.notificationID == "0")

        // A put-back from one process wakes the other's waiters, who claim it, in its place.
        let heard = Mutex<Set<String>>([])
        second.onNotificationsQueued { tokens in heard.withLock { $0.formUnion(tokens) } }
        try PostgresCrossProcessTests.waitUntil { second.hearsOtherProcesses }
        try first.returnNotifications([back])
        try PostgresCrossProcessTests.waitUntil { heard.withLock { $0 } == [token.token] }
        let again = try #require(try second.claimNotifications(for: [token])[token.token])
        #expect(again.notification.notificationID == "0")
        #expect(try first.claimNotifications(for: [token])[token.token]?.notification.notificationID == "2")
        #expect(try second.claimNotifications(for: [token]).isEmpty)
    }
}
