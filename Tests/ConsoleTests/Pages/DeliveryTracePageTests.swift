import CloudKitWire
import CloudStore
import TestSupport
import Testing

@testable import Console

/// The Sync tab's Delivery trace view: opened from a record of the change feed or a
/// subscription of the Notifications view, it shows which subscriptions fired for the record's
/// latest change, which did not and why, and what each push token was handed.
@Suite struct DeliveryTracePageTests {
    typealias Fixture = NotificationsPageTests.Fixture

    @Test func aTraceShowsWhySubscribersWereNotNotifiedAndWhatTheNotifiedOnesWereHanded() throws {
        let fixture = try Fixture()
        let (store, c) = (fixture.server.store, fixture.server.container)
        // A calm note does not pass alice's filter; n1 (urgent) queued hers.
        _ = try store.database(c, .development, .public, as: .user(fixture.bob)).modify(
            ModifyRequest(operations: [
                RecordOperation(
                    .create, recordName: "calm", recordType: "Note", fields: ["title": .string("Later"), "priority": .int64(1)])
            ]))
        let (status, calm) = try fixture.get(fixture.base + "/delivery?record=calm")
        #expect(status == 200, "\(calm)")
        #expect(calm.contains("<h1>Delivery trace</h1>") && calm.contains(#"aria-current="page">Delivery trace</a>"#))
        #expect(calm.contains("The create of <code class=\"wrap\">calm</code>"))
        #expect(calm.contains(#"<span class="badge fate">not matched</span>"#))
        #expect(calm.contains("Not notified: the record does not pass its query&#39;s filters"), "\(calm)")

        let (_, urgent) = try fixture.get(fixture.base + "/delivery?record=n1&subscription=urgent")
        #expect(urgent.contains(#"<span class="badge fate">queued</span>"#), "\(urgent)")
        #expect(urgent.contains("<code>\(fixture.aliceToken.id)</code>") && urgent.contains(">waiting<"))

        let (_, missing) = try fixture.get(fixture.base + "/delivery?record=nothing-here")
        #expect(missing.contains("holds no change of record nothing-here"))

        // The change feed links each record here, and the Notifications view each subscription.
        let (_, feed) = try fixture.get(fixture.base)
        #expect(feed.contains(#"href="\#(fixture.base)/delivery?record=calm">Trace delivery</a>"#), "\(feed)")
        let (_, notifications) = try fixture.get(fixture.base + "/notifications")
        #expect(notifications.contains(#"href="\#(fixture.base)/delivery?subscription=urgent">Trace delivery</a>"#))
    }
}
