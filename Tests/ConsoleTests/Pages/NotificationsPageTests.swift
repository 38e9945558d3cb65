import CloudKitWire
import CloudStore
import TestSupport
import Testing

@testable import Console

/// The Sync tab's Notifications view and its management route: each subscription's filter,
/// holder by name, last firing (linked to the log around it) and count; each push token's user,
/// last poll (linked to the user's requests) and waiting notifications with the courier's
/// payload; the shared database's subscriptions too; in production, no record values.
@Suite struct NotificationsPageTests {
    /// The shared database's console (alice's zone Trips shared with bob, who accepted; `root`
    /// signed in) with a `Note` type too: alice subscribed to urgent notes (with `title`
    /// carried) and holding a push token; bob subscribed to his shared database and holding one
    /// too; one urgent note by bob and one change in Trips.
    struct Fixture {
        let shared: SharedDatabasePagesTests.Fixture
        let management: (String, String)
        let bob: String
        let aliceToken: PushToken
        var server: ConsoleTestServer { shared.server }
        var cookie: (String, String) { shared.cookie }
        var csrf: String { shared.csrf }
        var alice: String { shared.alice }

        init() throws {
            shared = try SharedDatabasePagesTests.Fixture()
            let (store, c, alice) = (shared.server.store, shared.server.container, shared.alice)
            management = ("Authorization", "Bearer " + (try store.createManagementToken(for: "root", name: "t").text))
            try store.importSchema(
                """
                DEFINE SCHEMA
                    RECORD TYPE Item ("___recordID" REFERENCE QUERYABLE, title STRING QUERYABLE, GRANT READ, CREATE, WRITE TO "_creator");
                    RECORD TYPE Note ("___recordID" REFERENCE QUERYABLE, title STRING QUERYABLE, priority INT64 QUERYABLE,
                        GRANT READ TO "_world", GRANT CREATE TO "_icloud", GRANT WRITE TO "_creator");
                """, into: c, .development)
            bob = try #require(try store.user(named: "bob", in: c)).userRecordName
            aliceToken = try store.createPushToken(c, .development, apnsEnvironment: "development", caller: .user(alice))
            _ = try store.createPushToken(c, .development, apnsEnvironment: "development", caller: .user(bob))
            let urgent = Subscription(
                subscriptionID: "urgent",
                kind: .query(
                    Query(recordType: "Note", filters: [QueryFilter(.field("priority"), .greaterThan, .int64(5))]), zoneName: nil,
                    firesOn: [.create, .update], firesOnce: false),
                notificationInfo: NotificationInfo(alertBody: "Urgent", additionalFields: ["title"]))
            _ = try store.database(c, .development, .public, as: .user(alice)).modifySubscriptions([
                SubscriptionOperation(.create, urgent)
            ])
            _ = try store.database(c, .development, .public, as: .user(bob)).modify(
                ModifyRequest(operations: [
                    RecordOperation(
                        .create, recordName: "n1", recordType: "Note", fields: ["title": .string("Call"), "priority": .int64(9)])
                ]))
            // The shared database: bob is told of changes in alice's zone shared with him.
            _ = try store.database(c, .development, .shared, as: .user(bob)).modifySubscriptions([
                SubscriptionOperation(.create, Subscription(subscriptionID: "shared-all", kind: .database))
            ])
            _ = try store.database(c, .development, .private, as: .user(alice)).modify(
                ModifyRequest(
                    operations: [
                        RecordOperation(.forceUpdate, recordName: "trip", recordType: "Item", fields: ["title": .string("Porto")])
                    ],
                    zoneName: "Trips"))
        }

        var base: String { "/console/containers/\(server.container.rawValue)/development/public/sync" }

        func get(_ path: String) throws -> (Int, String) {
            let response = try server.get(path, headers: [cookie])
            return (response.status, response.text)
        }
    }

    @Test func theViewShowsEachSubscriptionsFilterHolderAndLastFiringAndEachTokensQueue() throws {
        let fixture = try Fixture()
        _ = try fixture.server.store.usePushToken(fixture.aliceToken.token)
        let (status, page) = try fixture.get(fixture.base + "/notifications")
        #expect(status == 200, "\(page)")
        #expect(page.contains("<h1>Notifications</h1>"))
        #expect(page.contains(#"aria-current="page">Notifications</a>"#), "the sub-navigation marks the view")
        #expect(page.contains("Note where priority GREATER_THAN 9") == false)
        #expect(page.contains("Note where priority GREATER_THAN 5 in every zone, on create, update"), "the filter in words")
        #expect(page.contains(#"title="\#(fixture.alice)">alice ("#), "the holder by name first")
        // Last fired: a time linked to the log a minute either side; queued: one.
        let logs = "/console/containers/\(fixture.server.container.rawValue)/development/logs?from="
        #expect(page.contains(#"<a href="\#(logs)"#))
        #expect(!page.contains(#"<span class="muted">never</span>"#), "both subscriptions fired")
        // bob's subscription of his shared database fired for alice's change in Trips.
        #expect(page.contains("shared-all") && page.contains("shared of bob"))
        // alice's token: polled (not "never"), one notification waiting, its payload as the courier hands it out.
        #expect(
            page.contains(
                #"<a class="small user-requests" href="/console/containers/\#(fixture.server.container.rawValue)/development/logs?user=alice">requests</a>"#
            ))
        #expect(page.contains("create of n1 in zone _defaultZone"))
        #expect(page.contains("&quot;rid&quot;:&quot;n1&quot;") && page.contains("&quot;af&quot;:{&quot;title&quot;:&quot;Call&quot;}"))
        #expect(page.contains("records of") == false)
        #expect(page.contains("zones of the shared database changed"), "bob's queue: his shared database's notification")
        #expect(!page.contains("(record values withheld)"), "development shows the values")
        let tokenRow = try #require(page.split(separator: "<tr>").first { $0.contains(fixture.aliceToken.id) && $0.contains("last-poll") })
        #expect(!tokenRow.contains(">never<"), "the poll is shown")

        // The change feed view no longer carries these cards, and links here.
        let (_, feed) = try fixture.get(fixture.base)
        #expect(!feed.contains("<h2>Push tokens</h2>") && !feed.contains("<h2>Subscriptions</h2>"))
        #expect(feed.contains(#"href="\#(fixture.base)/notifications">Notifications</a>"#))
    }

    @Test func deletingASubscriptionComesBackToTheView() throws {
        let fixture = try Fixture()
        let response = try fixture.server.post(
            fixture.base + "/subscriptions/delete",
            form: [
                ("csrfToken", fixture.csrf), ("confirmed", "yes"), ("subscriptionID", "urgent"), ("subscriber", fixture.alice),
                ("subscriptionDatabase", "public"), ("subscriptionOwner", DatabaseID.publicOwner),
            ], headers: [fixture.cookie, ("Sec-Fetch-Site", "same-origin")])
        #expect(response.status == 303)
        #expect(response.header("Location")?.hasPrefix(fixture.base + "/notifications") == true)
        #expect(
            try fixture.server.store.subscriptions(fixture.server.container, .development).map(\.subscription.subscriptionID) == [
                "shared-all"
            ])
    }

    @Test func theManagementRouteAnswersTheSameView() throws {
        let fixture = try Fixture()
        let path = "/admin/v1/containers/\(fixture.server.container.rawValue)/development/notifications/queued"
        let response = try HTTPTestClient.send(port: fixture.server.port, method: "GET", target: path, headers: [fixture.management])
        #expect(response.status == 200)
        let answer = try response.json()
        let view = try NotificationsView(json: answer)
        let urgent = try #require(view.subscriptions.first { $0.entry.subscriptionID == "urgent" })
        #expect(urgent.userName == "alice" && urgent.queued == 1 && urgent.lastFired != nil)
        #expect(urgent.entry.watches == "Note where priority GREATER_THAN 5 in every zone, on create, update")
        let alices = try #require(view.queues.first { $0.id == fixture.aliceToken.id })
        #expect(alices.userName == "alice" && alices.waiting == 1 && alices.lastPolled == nil)
        let notification = try #require(alices.notifications.first)
        #expect(notification.subscriptionID == "urgent" && notification.kind == "query" && notification.recordName == "n1")
        #expect(notification.payload["ck"]?["qry"]?["af"] == ["title": "Call"] && !notification.contentsWithheld)
        #expect(!answer.serialized().contains(Array(fixture.aliceToken.token.utf8)), "the token itself is never shown")
        let one = try HTTPTestClient.send(
            port: fixture.server.port, method: "GET", target: path + "?pushToken=\(fixture.aliceToken.id)&limit=0",
            headers: [fixture.management])
        #expect(try NotificationsView(json: one.json()).queues.map { [$0.waiting, Int64($0.notifications.count)] } == [[1, 0]])
        let unknown = try HTTPTestClient.send(
            port: fixture.server.port, method: "GET", target: path + "?pushToken=nope", headers: [fixture.management])
        #expect(unknown.status == 404)
        let anonymous = try HTTPTestClient.send(port: fixture.server.port, method: "GET", target: path)
        #expect(anonymous.status == 401)
    }

    @Test func inProductionThePrivateDatabasesNotificationsShowNoRecordValues() throws {
        let fixture = try Fixture()
        let (store, c) = (fixture.server.store, fixture.server.container)
        try store.deploySchema(c, deployedBy: "test")
        _ = try store.createPushToken(c, .production, apnsEnvironment: "production", caller: .user(fixture.alice))
        let own = try store.database(c, .production, .private, as: .user(fixture.alice))
        _ = try own.modifySubscriptions([
            SubscriptionOperation(
                .create,
                Subscription(
                    subscriptionID: "mine",
                    kind: .query(Query(recordType: "Note"), zoneName: nil, firesOn: [.create], firesOnce: false),
                    notificationInfo: NotificationInfo(additionalFields: ["title"])))
        ])
        _ = try own.modify(
            ModifyRequest(operations: [
                RecordOperation(.create, recordName: "diary", recordType: "Note", fields: ["title": .string("Secret")])
            ]))
        let (status, page) = try fixture.get("/console/containers/\(c.rawValue)/production/public/sync/notifications")
        #expect(status == 200, "\(page)")
        #expect(page.contains("create of diary in zone _defaultZone"), "the metadata is shown")
        #expect(page.contains("(record values withheld)"))
        #expect(!page.contains("Secret"), "never the record's values")
    }
}
