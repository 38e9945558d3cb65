import TestSupport
import Testing

@testable import CloudStore

/// The delivery tracer: for a committed change, which subscriptions fired and which did not and
/// why (weighed by delivery's own rules), and what became of each notification token by token.
@Suite struct DeliveryTraceTests {
    typealias Fixture = SubscriptionsTests.Fixture

    static func trace(_ fixture: Fixture, _ recordName: String, subscription: String? = nil) throws -> DeliveryTrace {
        try fixture.store.store.traceDelivery(
            fixture.store.container, .development, database: .public, zoneName: ZoneID.defaultZoneName, recordName: recordName,
            subscriptionID: subscription, as: .local)
    }

    static func traced(_ trace: DeliveryTrace, _ id: String) throws -> TracedSubscription {
        try #require(trace.subscriptions.first { $0.subscription.subscriptionID == id })
    }

    @Test func aChangeWhoseSubscribersWereNotNotifiedSaysWhyForEach() throws {
        let fixture = try Fixture()
        _ = try fixture.database(fixture.alice).modifySubscriptions([
            SubscriptionOperation(.create, SubscriptionsTests.query("diaries", type: "Diary")),
            SubscriptionOperation(.create, SubscriptionsTests.query("urgent", [QueryFilter(.field("priority"), .greaterThan, .int64(5))])),
            SubscriptionOperation(.create, SubscriptionsTests.query("creations", firesOn: [.create])),
        ])
        let asBob = try fixture.database(fixture.bob)
        _ = try asBob.modify(
            ModifyRequest(operations: [
                RecordOperation(.create, recordName: "n1", recordType: "Note", fields: ["title": .string("Later"), "priority": .int64(1)]),
                RecordOperation(.create, recordName: "d1", recordType: "Diary", fields: ["title": .string("Mine")]),
            ]))
        let note = try Self.trace(fixture, "n1")
        #expect(note.change.kind == .create && note.change.recordType == "Note" && note.change.recordKnown)
        #expect(try Self.traced(note, "diaries").match == .otherRecordType("Diary"))
        #expect(try Self.traced(note, "urgent").match == .filtersNotMatched)
        #expect(try Self.traced(note, "creations").match.fires)
        for id in ["diaries", "urgent"] {
            let traced = try Self.traced(note, id)
            #expect(traced.fate == .notMatched && traced.notifications.isEmpty && traced.why.hasPrefix("Not notified: "))
        }

        // Only its creator reads a diary: alice's subscription never tells her of bob's.
        let diary = try Self.traced(try Self.trace(fixture, "d1"), "diaries")
        #expect(diary.match == .subscriberCannotRead && diary.fate == .notMatched)
        let access = try #require(diary.access)
        #expect(!access.decision.isAllowed && access.caller == "user(\(fixture.alice))" && access.recordName == "d1")

        // A deletion, which the subscription that fires on creations only ignores.
        _ = try asBob.modify(ModifyRequest(operations: [RecordOperation(.forceDelete, recordName: "n1")]))
        let deletion = try Self.trace(fixture, "n1", subscription: "creations")
        #expect(deletion.change.kind == .delete)
        #expect(deletion.subscriptions.map(\.subscription.subscriptionID) == ["creations"])
        #expect(deletion.subscriptions.first?.match == .firesOnExcludes(.delete, firesOn: [.create]))
        #expect(deletion.subscriptions.first?.why == "Not notified: it fires on create, not on delete")

        // In alice's private database, a change in one zone does not fire a subscription to another.
        let own = try fixture.database(fixture.alice, .private)
        _ = try own.modifyZones([ZoneOperation(.create, zoneName: "Home"), ZoneOperation(.create, zoneName: "Work")])
        _ = try own.modifySubscriptions([
            SubscriptionOperation(.create, Subscription(subscriptionID: "home", kind: .zone(zoneName: "Home")))
        ])
        _ = try own.modify(
            ModifyRequest(operations: [RecordOperation(.create, recordName: "w1", recordType: "Note", fields: [:])], zoneName: "Work"))
        let work = try fixture.store.store.traceDelivery(
            fixture.store.container, .development, database: .private(fixture.alice), zoneName: "Work", recordName: "w1", as: .local)
        #expect(work.change.database == .private(fixture.alice))
        let home = try Self.traced(work, "home")
        #expect(home.match == .otherZone("Home") && home.fate == .notMatched && home.why == "Not notified: it watches the zone Home")
    }

    @Test func aMatchedSubscriptionShowsWhatBecameOfItsNotificationTokenByToken() throws {
        let fixture = try Fixture()
        let (store, container) = (fixture.store.store, fixture.store.container)
        _ = try fixture.database(fixture.alice).modifySubscriptions([
            SubscriptionOperation(.create, SubscriptionsTests.query("notes")),
            SubscriptionOperation(.create, Subscription(subscriptionID: "zone", kind: .zone(zoneName: ZoneID.defaultZoneName))),
        ])
        // Carol holds no push token: her subscription fires and queues nothing.
        let carol = try store.addUser(container, name: "carol", password: "a long passphrase").userRecordName
        _ = try fixture.database(carol).modifySubscriptions([SubscriptionOperation(.create, SubscriptionsTests.query("carols"))])
        _ = try fixture.database(fixture.bob).modify(
            ModifyRequest(operations: [
                RecordOperation(.create, recordName: "n1", recordType: "Note", fields: ["title": .string("One")]),
                RecordOperation(.create, recordName: "n2", recordType: "Note", fields: ["title": .string("Two")]),
            ]))

        var trace = try Self.trace(fixture, "n1")
        let queued = try Self.traced(trace, "notes")
        #expect(queued.fate == .queued)
        #expect(queued.notifications.count == 1 && queued.notifications.first?.subject == "n1")
        #expect(
            queued.notifications.first?.deliveries
                == [TracedDelivery(tokenID: fixture.aliceToken.id, held: true, fate: .waiting, channel: nil, time: nil)])
        let skipped = try Self.traced(trace, "carols")
        #expect(skipped.match.fires && skipped.fate == .skipped && skipped.notifications.isEmpty)
        // The zone subscription fired once for the transaction, for its first change.
        #expect(try Self.traced(trace, "zone").fate == .queued)
        let coalesced = try Self.traced(try Self.trace(fixture, "n2"), "zone")
        #expect(coalesced.match.fires && coalesced.fate == .coalesced && coalesced.notifications.first?.subject == "n1")

        // A long poll takes the oldest: n1's query notification.
        let taken = try store.claimNotifications(for: [fixture.aliceToken], channels: [fixture.aliceToken.token: .longPoll])
        #expect(taken[fixture.aliceToken.token]?.notification.subscriptionID == "notes")
        trace = try Self.trace(fixture, "n1")
        let delivered = try Self.traced(trace, "notes")
        #expect(delivered.fate == .delivered)
        let handover = try #require(delivered.notifications.first?.deliveries.first)
        #expect(
            handover.fate == .fetched && handover.channel == .longPoll && handover.tokenID == fixture.aliceToken.id && handover.time != nil)
        #expect(try Self.traced(trace, "zone").fate == .queued, "not fetched yet")

        // Past its lifetime the rest expire, and what became of them is kept.
        fixture.store.clock.advance(by: store.configuration.notificationLifetime + 1)
        #expect(try store.removeExpiredNotifications() == 3)
        trace = try Self.trace(fixture, "n1")
        let expired = try Self.traced(trace, "zone")
        #expect(expired.fate == .expired && expired.notifications.first?.removed != nil)
        #expect(expired.notifications.first?.deliveries.map(\.fate) == [.expired])
        #expect(try Self.traced(trace, "notes").fate == .delivered, "the fetched one stays delivered after its removal")
    }

    @Test func aRecordIsFoundBehindManyNewerChangesOfRecordsNamedAfterIt() throws {
        let fixture = try Fixture()
        let asBob = try fixture.database(fixture.bob)
        _ = try asBob.modify(ModifyRequest(operations: [RecordOperation(.create, recordName: "p", recordType: "Note", fields: [:])]))
        // More than a page of the log's name index, newer than it and named after it.
        for batch in 0..<2 {
            _ = try asBob.modify(
                ModifyRequest(
                    operations: (0..<150).map {
                        RecordOperation(.create, recordName: "p-\(batch)-\($0)", recordType: "Note", fields: [:])
                    }))
        }
        let trace = try Self.trace(fixture, "p")
        #expect(trace.change.recordName == "p" && trace.change.kind == .create && trace.change.sequence == 1)
    }

    @Test func anOperatorWithoutAccessToTheContainerIsRefused() throws {
        let fixture = try Fixture()
        let store = fixture.store.store
        _ = try fixture.database(fixture.bob).modify(
            ModifyRequest(operations: [RecordOperation(.create, recordName: "n1", recordType: "Note", fields: [:])]))
        let other = try ContainerIdentifier("iCloud.com.example.Other")
        try store.createContainer(other)
        try store.addOperator("outsider", password: "operator password", role: .owner, containers: [other])
        try store.addOperator("viewer", password: "operator password", role: .viewer)
        for name in ["outsider", "viewer"] {
            #expect(throws: CloudStoreError.self) {
                try store.traceDelivery(
                    fixture.store.container, .development, database: .public, zoneName: ZoneID.defaultZoneName, recordName: "n1",
                    as: .session(operatorName: name, sessionID: "s"))
            }
        }
        try store.addOperator("insider", password: "operator password", role: .developer, containers: [fixture.store.container])
        let trace = try store.traceDelivery(
            fixture.store.container, .development, database: .public, zoneName: ZoneID.defaultZoneName, recordName: "n1",
            as: .session(operatorName: "insider", sessionID: "s"))
        #expect(trace.change.recordName == "n1")
    }
}
