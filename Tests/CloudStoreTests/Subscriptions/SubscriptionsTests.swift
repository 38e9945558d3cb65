import TestSupport
import Testing

@testable import CloudStore

/// Subscriptions and the notifications they make at commit: which changes fire which
/// subscription, what a notification says, what it never tells, and that queued notifications
/// outlive the store that queued them.
@Suite struct SubscriptionsTests {
    static let schema = """
        DEFINE SCHEMA
            RECORD TYPE Note (
                "___recordID" REFERENCE QUERYABLE,
                title STRING QUERYABLE,
                priority INT64 QUERYABLE,
                GRANT WRITE TO "_creator",
                GRANT CREATE TO "_icloud",
                GRANT READ TO "_world"
            );
            RECORD TYPE Diary (
                "___recordID" REFERENCE QUERYABLE,
                title STRING,
                GRANT CREATE, READ, WRITE TO "_creator"
            );
        """

    /// A store with the schema, alice and bob, each holding a registered push token.
    struct Fixture {
        let store: TemporaryStore
        let alice: String
        let bob: String
        let aliceToken: PushToken
        let bobToken: PushToken

        init(configure: (inout CloudStoreConfiguration) -> Void = { _ in }) throws {
            store = try TemporaryStore(configure: configure)
            try store.importSchema(SubscriptionsTests.schema)
            alice = try store.store.addUser(store.container, name: "alice", password: "a long passphrase").userRecordName
            bob = try store.store.addUser(store.container, name: "bob", password: "a long passphrase").userRecordName
            aliceToken = try store.store.createPushToken(
                store.container, .development, apnsEnvironment: "development", caller: .user(alice))
            bobToken = try store.store.createPushToken(store.container, .development, apnsEnvironment: "development", caller: .user(bob))
        }

        func database(_ user: String, _ scope: DatabaseScope = .public) throws -> CloudDatabase {
            try store.store.database(store.container, .development, scope, as: .user(user))
        }

        /// Takes every notification queued for `token`, oldest first.
        func take(_ token: PushToken) throws -> [QueuedNotification] {
            var taken: [QueuedNotification] = []
            while let next = try store.store.oldestNotification(for: token) {
                taken.append(next.notification)
                #expect(try store.store.removeNotification(next))
            }
            return taken
        }
    }

    static func query(
        _ id: String, _ filters: [QueryFilter] = [], firesOn: Set<Subscription.FiresOn> = Set(Subscription.FiresOn.allCases),
        firesOnce: Bool = false, info: NotificationInfo? = nil, type: String = "Note"
    ) -> Subscription {
        Subscription(
            subscriptionID: id,
            kind: .query(Query(recordType: type, filters: filters), zoneName: nil, firesOn: firesOn, firesOnce: firesOnce),
            notificationInfo: info)
    }

    static func describe(_ notification: QueuedNotification) -> String {
        switch notification.reason {
        case .query(let recordName, let firesOn, _, _): "\(notification.subscriptionID) \(firesOn.rawValue) \(recordName)"
        case .zone(let zoneID): "\(notification.subscriptionID) zone \(zoneID.zoneName)"
        case .database: "\(notification.subscriptionID) database"
        }
    }

    @Test func subscriptionsAreSavedListedLookedUpAndDeletedPerUser() throws {
        let fixture = try Fixture()
        let asAlice = try fixture.database(fixture.alice)
        let urgent = Self.query(
            "urgent", [QueryFilter(.field("priority"), .greaterThan, .int64(5))], firesOn: [.create],
            info: NotificationInfo(alertBody: "Urgent", shouldBadge: true, additionalFields: ["title"]))
        let saved = try asAlice.modifySubscriptions([
            SubscriptionOperation(.create, urgent),
            SubscriptionOperation(.create, Subscription(subscriptionID: "zone", kind: .zone(zoneName: "_defaultZone"))),
        ])
        #expect(
            saved == [.subscription(urgent), .subscription(Subscription(subscriptionID: "zone", kind: .zone(zoneName: "_defaultZone")))])
        #expect(try asAlice.subscriptions().map(\.subscriptionID) == ["urgent", "zone"])
        #expect(try asAlice.subscriptions().first == urgent, "stored and read back whole")
        #expect(try fixture.database(fixture.bob).subscriptions().isEmpty, "bob sees none of alice's")
        #expect(
            try asAlice.lookupSubscriptions(["zone", "nope"]) == [
                .subscription(Subscription(subscriptionID: "zone", kind: .zone(zoneName: "_defaultZone"))),
                .failure(subscriptionID: "nope", .notFound("Subscription 'nope' not found")),
            ])
        #expect(
            try fixture.database(fixture.bob).modifySubscriptions([SubscriptionOperation(.delete, urgent)])
                == [.failure(subscriptionID: "urgent", .notFound("Subscription 'urgent' not found"))], "bob cannot delete alice's")
        #expect(try asAlice.modifySubscriptions([SubscriptionOperation(.delete, urgent)]) == [.deleted(subscriptionID: "urgent")])
        #expect(try asAlice.subscriptions().map(\.subscriptionID) == ["zone"])
    }

    @Test func subscriptionsThatCouldNotFireOrWouldTellTooMuchAreRefused() throws {
        let fixture = try Fixture()
        let asAlice = try fixture.database(fixture.alice)
        let results = try asAlice.modifySubscriptions([
            SubscriptionOperation(.create, Self.query("unknown-type", type: "Nope")),
            SubscriptionOperation(.create, Self.query("no-index", [QueryFilter(.field("title"), .equals, .string("x"))], type: "Diary")),
            SubscriptionOperation(.create, Self.query("never", firesOn: [])),
            SubscriptionOperation(.create, Subscription(subscriptionID: "no-zone", kind: .zone(zoneName: "Elsewhere"))),
            SubscriptionOperation(.update, Self.query("not-held")),
        ])
        #expect(
            results == [
                .failure(subscriptionID: "unknown-type", .badRequest("Did not find record type: Nope")),
                .failure(subscriptionID: "no-index", .missingIndex(MissingIndex(recordType: "Diary", field: "title", index: .queryable))),
                .failure(subscriptionID: "never", .badRequest("A query subscription must fire on create, update or delete")),
                .failure(subscriptionID: "no-zone", .zoneNotFound(ZoneID(zoneName: "Elsewhere", ownerRecordName: DatabaseID.publicOwner))),
                .failure(subscriptionID: "not-held", .notFound("Subscription 'not-held' not found")),
            ])
        #expect(throws: CloudStoreError.authenticationRequired("Subscriptions need a signed-in user")) {
            try fixture.store.database(as: .world).subscriptions()
        }
    }

    @Test func aChangeFiresTheMatchingQuerySubscriptionsOnceEachWithWhatTheyAskedFor() throws {
        let fixture = try Fixture()
        let asAlice = try fixture.database(fixture.alice)
        let asBob = try fixture.database(fixture.bob)
        let info = NotificationInfo(alertBody: "Urgent", additionalFields: ["title", "priority"])
        _ = try asAlice.modifySubscriptions([
            SubscriptionOperation(.create, Self.query("urgent", [QueryFilter(.field("priority"), .greaterThan, .int64(5))], info: info)),
            SubscriptionOperation(.create, Self.query("deletions", firesOn: [.delete])),
            SubscriptionOperation(.create, Subscription(subscriptionID: "zone", kind: .zone(zoneName: "_defaultZone"))),
        ])
        _ = try asBob.modifySubscriptions([
            SubscriptionOperation(
                .create,
                Self.query(
                    "first-urgent", [QueryFilter(.field("priority"), .greaterThan, .int64(5))],
                    firesOnce: true))
        ])

        // One batch of two records: each query subscription fires per record, the zone one once.
        _ = try asBob.modify(
            ModifyRequest(operations: [
                RecordOperation(.create, recordName: "n1", recordType: "Note", fields: ["title": .string("Call"), "priority": .int64(9)]),
                RecordOperation(.create, recordName: "n2", recordType: "Note", fields: ["title": .string("Later"), "priority": .int64(1)]),
            ]))
        _ = try asBob.modify(
            ModifyRequest(operations: [RecordOperation(.forceUpdate, recordName: "n2", recordType: "Note", fields: ["priority": .int64(7)])]
            ))
        _ = try asBob.modify(ModifyRequest(operations: [RecordOperation(.forceDelete, recordName: "n1")]))

        let forAlice = try fixture.take(fixture.aliceToken)
        #expect(
            forAlice.map(Self.describe) == [
                "urgent create n1", "zone zone _defaultZone", "urgent update n2", "zone zone _defaultZone",
                "deletions delete n1", "urgent delete n1", "zone zone _defaultZone",
            ], "in the order of the changes; for one change, in the order the subscriptions were saved, then by identifier")
        #expect(
            forAlice[0].reason
                == .query(
                    recordName: "n1", firesOn: .create, zoneID: .defaultZone(of: .public),
                    fields: ["title": .string("Call"), "priority": .int64(9)]))
        #expect(forAlice[0].notificationInfo == info && forAlice[0].userRecordName == fixture.alice && forAlice[0].databaseScope == .public)
        #expect(forAlice[4].notificationID == forAlice[5].notificationID, "one change, one notification id for every subscription it fires")
        #expect(forAlice[0].notificationID != forAlice[2].notificationID)
        #expect(try fixture.take(fixture.bobToken).map(Self.describe) == ["first-urgent create n1"], "a fire-once subscription fires once")
        #expect(try asBob.subscriptions().isEmpty, "and is gone after")
    }

    @Test func nobodyLearnsOfARecordTheyMayNotReadNorOfAChangeRolledBack() throws {
        let fixture = try Fixture()
        let asAlice = try fixture.database(fixture.alice)
        let asBob = try fixture.database(fixture.bob)
        _ = try asBob.modifySubscriptions([
            SubscriptionOperation(.create, Subscription(subscriptionID: "zone", kind: .zone(zoneName: "_defaultZone"))),
            SubscriptionOperation(.create, Subscription(subscriptionID: "all", kind: .database)),
        ])
        #expect(
            try asBob.modifySubscriptions([SubscriptionOperation(.create, Self.query("diaries", type: "Diary"))])
                == [.subscription(Self.query("diaries", type: "Diary"))], "bob may read his own diaries")
        _ = try asAlice.modify(
            ModifyRequest(operations: [
                RecordOperation(.create, recordName: "secret", recordType: "Diary", fields: ["title": .string("mine")])
            ]))
        #expect(try fixture.take(fixture.bobToken).isEmpty, "alice's diary tells bob nothing, not even that the zone changed")

        // Alice's private database: an atomic batch that fails notifies nobody.
        let own = try fixture.database(fixture.alice, .private)
        _ = try own.modifyZones([ZoneOperation(.create, zoneName: "Work")])
        _ = try own.modifySubscriptions([
            SubscriptionOperation(.create, Subscription(subscriptionID: "work", kind: .zone(zoneName: "Work")))
        ])
        let failed = try own.modify(
            ModifyRequest(
                operations: [
                    RecordOperation(.create, recordName: "w1", recordType: "Note", fields: [:]),
                    RecordOperation(.update, recordName: "missing", recordType: "Note", recordChangeTag: "x", fields: [:]),
                ], zoneName: "Work"))
        #expect(failed.allSatisfy { $0.record == nil })
        #expect(try fixture.take(fixture.aliceToken).isEmpty)
        _ = try own.modify(
            ModifyRequest(operations: [RecordOperation(.create, recordName: "w1", recordType: "Note", fields: [:])], zoneName: "Work"))
        #expect(try fixture.take(fixture.aliceToken).map(Self.describe) == ["work zone Work"])
        #expect(try fixture.take(fixture.bobToken).isEmpty, "bob is told nothing of alice's private database")
    }

    @Test func databaseSubscriptionsFireForZonesCreatedAndDeleted() throws {
        let fixture = try Fixture()
        let own = try fixture.database(fixture.alice, .private)
        _ = try own.modifySubscriptions([SubscriptionOperation(.create, Subscription(subscriptionID: "db", kind: .database))])
        _ = try own.modifyZones([ZoneOperation(.create, zoneName: "A"), ZoneOperation(.create, zoneName: "B")])
        _ = try own.modifyZones([ZoneOperation(.delete, zoneName: "A")])
        #expect(try fixture.take(fixture.aliceToken).map(Self.describe) == ["db database", "db database"], "once per transaction")
    }

    /// The writer remembers each database's subscriptions across its writes; a subscription
    /// saved or deleted by the server, by a fire-once firing, or by another process on the same
    /// files (the command line) is matched, or no longer matched, by the very next change.
    @Test func subscriptionsSavedOrDeletedAnywhereApplyToTheNextChange() throws {
        let fixture = try Fixture()
        let asAlice = try fixture.database(fixture.alice)
        let asBob = try fixture.database(fixture.bob)
        let other = try fixture.store.anotherProcess()
        let aliceElsewhere = try other.database(fixture.store.container, .development, .public, as: .user(fixture.alice))

        try asBob.create("Note", "n1")
        _ = try asAlice.modifySubscriptions([SubscriptionOperation(.create, Self.query("all"))])
        try asBob.create("Note", "n2")
        try asBob.create("Note", "n3")
        _ = try aliceElsewhere.modifySubscriptions([SubscriptionOperation(.delete, Self.query("all"))])
        try asBob.create("Note", "n4")
        _ = try aliceElsewhere.modifySubscriptions([SubscriptionOperation(.create, Self.query("again", firesOnce: true))])
        try asBob.create("Note", "n5")
        try asBob.create("Note", "n6")
        _ = try asAlice.modifySubscriptions([SubscriptionOperation(.create, Self.query("last"))])
        try asBob.create("Note", "n7")
        _ = try asAlice.modifySubscriptions([SubscriptionOperation(.delete, Self.query("last"))])
        try asBob.create("Note", "n8")

        #expect(
            try fixture.take(fixture.aliceToken).map(Self.describe) == [
                "all create n2", "all create n3", "again create n5", "last create n7",
            ])
    }

    @Test func queuedNotificationsOutliveTheStoreAndExpireAfterTheirLifetime() throws {
        let day: Int64 = 24 * 60 * 60 * 1000
        let fixture = try Fixture { $0.notificationLifetime = day }
        _ = try fixture.database(fixture.alice).modifySubscriptions([SubscriptionOperation(.create, Self.query("all"))])
        try fixture.database(fixture.bob).create("Note", "n1")
        try fixture.database(fixture.bob).create("Note", "n2")

        // The same files opened by another store, as after a restart.
        let reopened = try fixture.store.anotherProcess()
        let first = try #require(try reopened.oldestNotification(for: fixture.aliceToken))
        #expect(Self.describe(first.notification) == "all create n1")
        #expect(try reopened.removeNotification(first))
        #expect(try reopened.queuedNotificationCounts(fixture.store.container, .development) == [fixture.aliceToken.token: 1])

        fixture.store.clock.advance(by: day + 1)
        #expect(try reopened.oldestNotification(for: fixture.aliceToken) == nil, "expired")
        #expect(try reopened.queuedNotificationCounts(fixture.store.container, .development).isEmpty, "expired ones wait for nobody")
        // Both rows go: queued once for alice, the one her token took stays for her other tokens until it expires.
        #expect(try reopened.removeExpiredNotifications() == 2)
        #expect(try reopened.queuedNotificationCounts(fixture.store.container, .development).isEmpty)
    }

    @Test func claimedNotificationsLeaveTheQueueAndThoseNotTakenGoBackInTheirPlace() throws {
        let fixture = try Fixture()
        for user in [fixture.alice, fixture.bob] {
            _ = try fixture.database(user).modifySubscriptions([SubscriptionOperation(.create, Self.query("all"))])
        }
        for name in ["n1", "n2", "n3"] { try fixture.database(fixture.bob).create("Note", name) }
        let store = fixture.store.store

        // One claim serves several tokens at once, each its oldest entry.
        let both = try store.claimNotifications(for: [fixture.aliceToken, fixture.bobToken])
        #expect(
            both.mapValues { Self.describe($0.notification) } == [
                fixture.aliceToken.token: "all create n1", fixture.bobToken.token: "all create n1",
            ])
        #expect(both[fixture.aliceToken.token]?.token == fixture.aliceToken)
        let second = try #require(try store.claimNotifications(for: [fixture.aliceToken])[fixture.aliceToken.token])
        #expect(Self.describe(second.notification) == "all create n2")
        #expect(
            try store.queuedNotificationCounts(fixture.store.container, .development) == [
                fixture.aliceToken.token: 1, fixture.bobToken.token: 2,
            ], "claimed entries left the queue")

        // Alice's first went to a poll that had ended: it comes back before n3, not after.
        try store.returnNotifications([both[fixture.aliceToken.token]!])
        try store.returnNotifications([both[fixture.aliceToken.token]!])
        #expect(try fixture.take(fixture.aliceToken).map(Self.describe) == ["all create n1", "all create n3"], "back once, in its place")
        #expect(try store.claimNotifications(for: [fixture.aliceToken]).isEmpty)
        #expect(try fixture.take(fixture.bobToken).map(Self.describe) == ["all create n2", "all create n3"])
    }

    @Test func expiredNotificationsAreNeverClaimedAndGoWithTheNextClaim() throws {
        let day: Int64 = 24 * 60 * 60 * 1000
        let fixture = try Fixture { $0.notificationLifetime = day }
        _ = try fixture.database(fixture.alice).modifySubscriptions([SubscriptionOperation(.create, Self.query("all"))])
        try fixture.database(fixture.bob).create("Note", "n1")
        fixture.store.clock.advance(by: day + 1)
        #expect(try fixture.store.store.claimNotifications(for: [fixture.aliceToken]).isEmpty)
        #expect(try fixture.store.store.queuedNotificationCounts(fixture.store.container, .development).isEmpty)
    }
}
