import TestSupport
import Testing

@testable import CloudStore

/// No user makes someone else's save write more than a bounded number of rows (security review
/// N2): push tokens are limited and capped per user, and a notification is queued once per
/// subscriber, handed to each of their tokens when it polls.
@Suite struct NotificationFanOutTests {
    /// The review's proof: one user asks for 200 push tokens; they get the cap at most.
    @Test func aSignedInUserIsRateLimitedAndCappedInPushTokens() throws {
        let fixture = try SubscriptionsTests.Fixture()
        let store = fixture.store.store
        let container = fixture.store.container
        var throttled = 0
        for _ in 0..<200 {
            do {
                _ = try store.createPushToken(container, .development, apnsEnvironment: "development", caller: .user(fixture.alice))
            } catch CloudStoreError.throttled {
                throttled += 1
            }
        }
        #expect(throttled >= 180, "tokens/create is rate-limited per signed-in user")
        #expect(try store.pushTokens(container, .development, of: fixture.alice).count <= 20)

        // Past the cap, however slowly asked for, the oldest go.
        var newest: [PushToken] = []
        for _ in 0..<30 {
            fixture.store.clock.advance(by: 60_000)
            newest.append(try store.createPushToken(container, .development, apnsEnvironment: "development", caller: .user(fixture.alice)))
        }
        let held = try store.pushTokens(container, .development, of: fixture.alice)
        #expect(held.count == 20)
        #expect(held.map(\.token) == newest.suffix(20).map(\.token))
        #expect(try store.pushToken(fixture.aliceToken.token) == nil, "the oldest went")
        #expect(try store.pushTokens(container, .development, of: fixture.bob).count == 1, "bob's are his own")

        // tokens/register of a token the world made is limited and capped the same way.
        let unbound = try store.createPushToken(container, .development, apnsEnvironment: "development", caller: .world)
        fixture.store.clock.advance(by: 60_000)
        try store.registerPushToken(unbound.token, container, .development, apnsEnvironment: "development", caller: .user(fixture.alice))
        #expect(try store.pushTokens(container, .development, of: fixture.alice).map(\.token).last == unbound.token)
        #expect(try store.pushTokens(container, .development, of: fixture.alice).count == 20)
    }

    /// The review's proof with the cap lifted to 200: 200 tokens × 50 subscriptions, and a save
    /// by another user writes 50 notification rows, not 10,000; every token still gets each one.
    @Test func aSaveWritesOneRowPerNotificationHoweverManyTokensTheSubscriberHolds() throws {
        let fixture = try SubscriptionsTests.Fixture { $0.maximumPushTokensPerUser = 200 }
        let store = fixture.store.store
        let container = fixture.store.container
        var tokens = [fixture.aliceToken]
        while tokens.count < 200 {
            // Slowly enough for the rate limit.
            fixture.store.clock.advance(by: 6_000)
            tokens.append(try store.createPushToken(container, .development, apnsEnvironment: "development", caller: .user(fixture.alice)))
        }
        #expect(try store.pushTokens(container, .development, of: fixture.alice).count == 200)
        let subscriptions = (0..<50).map { SubscriptionOperation(.create, SubscriptionsTests.query("spy-\($0)", firesOn: [.create])) }
        _ = try fixture.database(fixture.alice).modifySubscriptions(subscriptions)

        try fixture.database(fixture.bob).create("Note", "folder-1")
        #expect(try store.queuedNotificationRowCount(container, .development) == 50)
        try fixture.database(fixture.bob).create("Note", "folder-2")
        #expect(try store.queuedNotificationRowCount(container, .development) == 100)

        // Every token is handed each notification once, in order.
        var got: [String: [String]] = [:]
        while true {
            let claimed = try store.claimNotifications(for: tokens)
            if claimed.isEmpty { break }
            for (token, delivery) in claimed {
                got[token, default: []].append("\(delivery.notification.subscriptionID) \(Self.recordName(delivery.notification))")
            }
        }
        let expected = ["folder-1", "folder-2"].flatMap { name in (0..<50).map { "spy-\($0) \(name)" } }
        let first = got[fixture.aliceToken.token] ?? []
        #expect(got.count == 200)
        #expect(first.sorted() == expected.sorted() && Array(first.prefix(50)).allSatisfy { $0.hasSuffix("folder-1") })
        #expect(got.values.allSatisfy { $0 == first }, "each token in the same order")
        #expect(try store.queuedNotificationCounts(container, .development).isEmpty)
    }

    static func recordName(_ notification: QueuedNotification) -> String {
        if case .query(let recordName, _, _, _) = notification.reason { return recordName }
        return "-"
    }
}
