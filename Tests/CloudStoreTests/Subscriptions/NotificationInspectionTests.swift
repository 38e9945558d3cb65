import TestSupport
import Testing

@testable import CloudStore

/// What an operator reads of notifications: when each subscription last fired and how many it
/// queued, when each push token was last polled, and each token's waiting notifications, with
/// the records' field values withheld in production's private and shared databases.
@Suite struct NotificationInspectionTests {
    typealias Fixture = SubscriptionsTests.Fixture

    static let urgentInfo = NotificationInfo(alertBody: "Urgent", additionalFields: ["title"])

    static func urgent() -> Subscription {
        SubscriptionsTests.query("urgent", [QueryFilter(.field("priority"), .greaterThan, .int64(5))], info: urgentInfo)
    }

    static func held(_ store: CloudStore, _ container: ContainerIdentifier, _ environment: Environment = .development, id: String)
        throws -> HeldSubscription?
    {
        try store.subscriptions(container, environment).first { $0.subscription.subscriptionID == id }
    }

    @Test func aSubscriptionNotesWhenItLastFiredAndHowManyItQueued() throws {
        let fixture = try Fixture()
        let (store, container) = (fixture.store.store, fixture.store.container)
        _ = try fixture.database(fixture.alice).modifySubscriptions([SubscriptionOperation(.create, Self.urgent())])
        // Carol holds no push token: her subscription fires but queues nothing.
        let carol = try store.addUser(container, name: "carol", password: "a long passphrase").userRecordName
        _ = try fixture.database(carol).modifySubscriptions([
            SubscriptionOperation(.create, Subscription(subscriptionID: "zone", kind: .zone(zoneName: "_defaultZone")))
        ])
        #expect(try Self.held(store, container, id: "urgent")?.lastFired == nil, "never fired yet")
        #expect(try Self.held(store, container, id: "urgent")?.queued == 0)

        let asBob = try fixture.database(fixture.bob)
        _ = try asBob.modify(
            ModifyRequest(operations: [
                RecordOperation(.create, recordName: "n1", recordType: "Note", fields: ["title": .string("Call"), "priority": .int64(9)]),
                RecordOperation(.create, recordName: "n2", recordType: "Note", fields: ["title": .string("Soon"), "priority": .int64(8)]),
            ]))
        let first = try #require(try Self.held(store, container, id: "urgent")?.lastFired)
        #expect(try Self.held(store, container, id: "urgent")?.queued == 2, "one per record of the batch")
        let zone = try #require(try Self.held(store, container, id: "zone"))
        #expect(zone.lastFired != nil && zone.queued == 0, "fired, but carol has no device to queue for")

        // A change the filter leaves out fires nothing: the time stays.
        fixture.store.clock.advance(by: 60_000)
        _ = try asBob.modify(
            ModifyRequest(operations: [
                RecordOperation(.create, recordName: "n3", recordType: "Note", fields: ["title": .string("Later"), "priority": .int64(1)])
            ]))
        #expect(try Self.held(store, container, id: "urgent")?.lastFired == first)
        _ = try asBob.modify(
            ModifyRequest(operations: [RecordOperation(.forceUpdate, recordName: "n3", recordType: "Note", fields: ["priority": .int64(7)])]
            ))
        let second = try #require(try Self.held(store, container, id: "urgent")?.lastFired)
        #expect(second >= first + 60_000)
        #expect(try Self.held(store, container, id: "urgent")?.queued == 3)
    }

    @Test func aTokensQueueIsListedOldestFirstWithWhatTheCourierHandsOutAndItsLastPoll() throws {
        let fixture = try Fixture()
        let (store, container) = (fixture.store.store, fixture.store.container)
        _ = try fixture.database(fixture.alice).modifySubscriptions([SubscriptionOperation(.create, Self.urgent())])
        #expect(try store.pushToken(fixture.aliceToken.token)?.lastPolled == nil, "not polled yet")
        for (name, priority) in [("n1", 9), ("n2", 6)] {
            _ = try fixture.database(fixture.bob).modify(
                ModifyRequest(operations: [
                    RecordOperation(
                        .create, recordName: name, recordType: "Note",
                        fields: ["title": .string(name), "priority": .int64(Int64(priority))])
                ]))
        }
        let polled = try #require(try store.usePushToken(fixture.aliceToken.token))
        let pollTime = try #require(polled.lastPolled)
        #expect(try store.pushToken(fixture.aliceToken.token)?.lastPolled == pollTime, "the poll is stored")

        let queues = try store.queuedNotifications(container, .development, as: .operator())
        let alices = try #require(queues.first { $0.token.token == fixture.aliceToken.token })
        #expect(alices.token.lastPolled == pollTime)
        #expect(alices.waiting == 2)
        #expect(alices.notifications.map(\.notification.subscriptionID) == ["urgent", "urgent"])
        #expect(
            alices.notifications.map(\.notification.reason) == [
                .query(recordName: "n1", firesOn: .create, zoneID: .defaultZone(of: .public), fields: ["title": .string("n1")]),
                .query(recordName: "n2", firesOn: .create, zoneID: .defaultZone(of: .public), fields: ["title": .string("n2")]),
            ], "oldest first, field values included in development")
        #expect(alices.notifications.allSatisfy { !$0.contentsWithheld })
        #expect(queues.first { $0.token.token == fixture.bobToken.token }?.waiting == 0)

        // What a poll takes leaves the listing; a limit lists fewer, not fewer waiting.
        let taken = try #require(try store.claimNotifications(for: [polled])[polled.token])
        _ = try store.removeNotifications([taken])
        let after = try store.queuedNotifications(container, .development, pushTokenID: polled.id, limit: 1, as: .operator())
        #expect(after.map(\.waiting) == [1])
        #expect(
            after.first?.notifications.map(\.notification.reason) == [
                .query(recordName: "n2", firesOn: .create, zoneID: .defaultZone(of: .public), fields: ["title": .string("n2")])
            ])
        #expect(throws: CloudStoreError.notFound("No push token nope in \(container) development")) {
            try store.queuedNotifications(container, .development, pushTokenID: "nope", as: .operator())
        }
    }

    @Test func onlyOperatorsReadTheQueues() throws {
        let fixture = try Fixture()
        let (store, container) = (fixture.store.store, fixture.store.container)
        for caller in [Caller.user(fixture.alice), .world, .server(fixture.bob)] {
            #expect(throws: CloudStoreError.accessDenied("Only operators read the notifications queued for users' devices")) {
                try store.queuedNotifications(container, .development, as: caller)
            }
        }
        #expect(try store.queuedNotifications(container, .development, as: .operator()).count == 2)
    }

    @Test func inProductionPrivateNotificationsShowMetadataWithoutFieldValuesAndPublicOnesWhole() throws {
        let fixture = try Fixture()
        let (store, container) = (fixture.store.store, fixture.store.container)
        try store.deploySchema(container, deployedBy: "test")
        let token = try store.createPushToken(container, .production, apnsEnvironment: "production", caller: .user(fixture.alice))
        let own = try store.database(container, .production, .private, as: .user(fixture.alice))
        _ = try own.modifySubscriptions([SubscriptionOperation(.create, Self.urgent())])
        _ = try own.modify(
            ModifyRequest(operations: [
                RecordOperation(
                    .create, recordName: "mine", recordType: "Note", fields: ["title": .string("Secret"), "priority": .int64(9)])
            ]))
        let world = try store.database(container, .production, .public, as: .user(fixture.alice))
        _ = try world.modifySubscriptions([SubscriptionOperation(.create, Self.urgent())])
        _ = try world.modify(
            ModifyRequest(operations: [
                RecordOperation(.create, recordName: "open", recordType: "Note", fields: ["title": .string("Open"), "priority": .int64(9)])
            ]))

        let queue = try #require(try store.queuedNotifications(container, .production, pushTokenID: token.id, as: .operator()).first)
        #expect(queue.waiting == 2)
        let (privateOne, publicOne) = (queue.notifications[0], queue.notifications[1])
        #expect(privateOne.contentsWithheld)
        #expect(
            privateOne.notification.reason
                == .query(recordName: "mine", firesOn: .create, zoneID: .defaultZone(of: .private(fixture.alice)), fields: [:]),
            "ids, zone and times, never the record's values")
        #expect(privateOne.notification.subscriptionID == "urgent" && privateOne.notification.databaseScope == .private)
        #expect(!publicOne.contentsWithheld)
        #expect(
            publicOne.notification.reason
                == .query(recordName: "open", firesOn: .create, zoneID: .defaultZone(of: .public), fields: ["title": .string("Open")]))
        // The device itself still gets the values: only the operator's reading withholds them.
        #expect(
            try store.oldestNotification(for: token)?.notification.reason
                == .query(
                    recordName: "mine", firesOn: .create, zoneID: .defaultZone(of: .private(fixture.alice)),
                    fields: ["title": .string("Secret")]))
    }
}
