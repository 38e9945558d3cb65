import TestSupport
import Testing

@testable import CloudStore

/// A push token's poll starts past what the token was handed: each token keeps a cursor before
/// which every entry of its queue was handed to it, so that a claim does not step over the day
/// of notifications it already took (delivered entries stay until they expire).
@Suite struct NotificationCursorTests {
    /// Notes alice is notified of, one per create by bob, with bob's own subscription queuing
    /// entries of his between hers.
    private static func fixture() throws -> SubscriptionsTests.Fixture {
        let fixture = try SubscriptionsTests.Fixture()
        _ = try fixture.database(fixture.alice).modifySubscriptions([
            SubscriptionOperation(.create, SubscriptionsTests.query("spy", firesOn: [.create]))
        ])
        _ = try fixture.database(fixture.bob).modifySubscriptions([
            SubscriptionOperation(.create, SubscriptionsTests.query("own", firesOn: [.create]))
        ])
        return fixture
    }

    private static func claim(_ token: PushToken, in store: CloudStore) throws -> NotificationDelivery? {
        try store.claimNotifications(for: [token])[token.token]
    }

    @Test func claimsStayInOrderAndExactlyOnceWhenOneInTheMiddleIsPutBack() throws {
        let fixture = try Self.fixture()
        let store = fixture.store.store
        for index in 1...8 { try fixture.database(fixture.bob).create("Note", "note-\(index)") }
        let first = try (0..<4).map { _ in try #require(try Self.claim(fixture.aliceToken, in: store)) }
        #expect(first.map { NotificationFanOutTests.recordName($0.notification) } == ["note-1", "note-2", "note-3", "note-4"])
        #expect(try store.notificationCursor(of: fixture.aliceToken) == first[3].key + 1)

        // note-2 was not taken: it goes back in its place, and the cursor with it.
        try store.returnNotifications([first[1]])
        #expect(try store.notificationCursor(of: fixture.aliceToken) == first[1].key)
        var rest: [String] = []
        while let next = try Self.claim(fixture.aliceToken, in: store) {
            rest.append(NotificationFanOutTests.recordName(next.notification))
        }
        #expect(rest == ["note-2", "note-5", "note-6", "note-7", "note-8"])
        #expect(try store.queuedNotificationCounts(fixture.store.container, .development)[fixture.aliceToken.token] == nil)

        // A put-back of what comes after the cursor leaves it; the entry is handed again, once.
        try store.returnNotifications([first[2]])
        #expect(try Self.claim(fixture.aliceToken, in: store).map { NotificationFanOutTests.recordName($0.notification) } == "note-3")
        #expect(try Self.claim(fixture.aliceToken, in: store) == nil)
        // Bob's token, its own cursor, is handed his own notifications, all of them.
        var bobs = 0
        while try Self.claim(fixture.bobToken, in: store) != nil { bobs += 1 }
        #expect(bobs == 8)
    }

    @Test func aTokenRegisteredLaterGetsOnlyWhatWasQueuedSince() throws {
        let fixture = try Self.fixture()
        let store = fixture.store.store
        for index in 1...3 { try fixture.database(fixture.bob).create("Note", "early-\(index)") }
        while try Self.claim(fixture.aliceToken, in: store) != nil {}
        fixture.store.clock.advance(by: 60_000)
        let later = try store.createPushToken(
            fixture.store.container, .development, apnsEnvironment: "development", caller: .user(fixture.alice))
        for index in 1...2 { try fixture.database(fixture.bob).create("Note", "late-\(index)") }

        var got: [String] = []
        while let next = try Self.claim(later, in: store) { got.append(NotificationFanOutTests.recordName(next.notification)) }
        #expect(got == ["late-1", "late-2"])
        got = []
        while let next = try Self.claim(fixture.aliceToken, in: store) { got.append(NotificationFanOutTests.recordName(next.notification)) }
        #expect(got == ["late-1", "late-2"])
    }

    /// The scan is bounded: after 2,000 notifications handed to a token, its queue starts past
    /// them, though they stay stored until they expire.
    @Test func aTokenQueueStartsPastWhatItWasHanded() throws {
        let fixture = try Self.fixture()
        let store = fixture.store.store
        let container = fixture.store.container
        try fixture.database(fixture.bob).create("Note", "note-1")
        let model = try #require(try store.oldestNotification(for: fixture.aliceToken)).notification
        let environment = try store.environment(container, .development)
        try environment.write { writer in
            for _ in 1..<2_000 { try writer.enqueue(model, expires: model.created + 86_400_000) }
        }
        #expect(try store.queuedNotificationCounts(container, .development)[fixture.aliceToken.token] == 2_000)
        var last: Int64 = 0
        var handed = 0
        while let next = try Self.claim(fixture.aliceToken, in: store) {
            #expect(next.key > last)
            last = next.key
            handed += 1
        }
        #expect(handed == 2_000)
        #expect(try store.notificationCursor(of: fixture.aliceToken) == last + 1, "the next poll starts past every entry handed out")
        #expect(try store.queuedNotificationRowCount(container, .development) >= 2_000, "handed entries stay until they expire")
        #expect(try store.queuedNotificationCounts(container, .development)[fixture.aliceToken.token] == nil)

        // A new one is the next handed out.
        try fixture.database(fixture.bob).create("Note", "note-2")
        let next = try #require(try Self.claim(fixture.aliceToken, in: store))
        #expect(NotificationFanOutTests.recordName(next.notification) == "note-2")
        #expect(try store.notificationCursor(of: fixture.aliceToken) == next.key + 1)

        // Once they expire, so does the cursor, which then skips nothing.
        fixture.store.clock.advance(by: 2 * 86_400_000)
        _ = try store.removeExpiredNotifications()
        #expect(try store.notificationCursor(of: fixture.aliceToken) == nil)
    }
}
