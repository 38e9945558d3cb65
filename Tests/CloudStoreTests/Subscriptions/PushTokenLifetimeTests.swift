import TestSupport
import Testing

@testable import CloudStore

/// What a session could receive ends with it (security review N1): a push token made in a
/// stolen session, and the subscription made with it, deliver nothing once the session is
/// signed out, the password changed or the user removed; tokens left unused end by themselves;
/// an operator lists and revokes them.
@Suite struct PushTokenLifetimeTests {
    enum Ending: String, CaseIterable, CustomTestStringConvertible {
        case signOutEverywhere, newPassword, removal, signOutOfThatSession
        var testDescription: String { rawValue }
    }

    /// The review's proof, at the store: a token and a private query subscription made with a
    /// stolen web auth token hand out alice's new private record after the session ended.
    @Test(arguments: Ending.allCases)
    func aTokenMadeInAStolenSessionEndsWithIt(_ ending: Ending) throws {
        let fixture = try SubscriptionsTests.Fixture()
        let store = fixture.store.store
        let container = fixture.store.container
        let stolen = try store.signIn(container, .development, name: "alice", password: "a long passphrase").webAuthToken
        let session = try store.session(forWebAuthToken: stolen, in: container, .development)
        let spy = try store.createPushToken(
            container, .development, apnsEnvironment: "development", caller: .user(fixture.alice), session: session.id)
        #expect(spy.session == session.id)
        let own = try fixture.database(fixture.alice, .private)
        _ = try own.modifySubscriptions([
            SubscriptionOperation(
                .create,
                SubscriptionsTests.query(
                    "spy", firesOn: [.create, .update],
                    info: NotificationInfo(shouldSendContentAvailable: true, additionalFields: ["title"]), type: "Diary"))
        ])
        _ = try own.modify(
            ModifyRequest(operations: [
                RecordOperation(.create, recordName: "diary-0", recordType: "Diary", fields: ["title": .string("before")])
            ]))
        #expect(try store.claimNotifications(for: [spy])[spy.token] != nil, "the token delivers while its session lives")

        switch ending {
        case .signOutEverywhere: try store.signOutEverywhere(fixture.alice, in: container)
        case .newPassword: try store.setPassword("another long passphrase", of: fixture.alice, in: container)
        case .removal: try store.removeUser(fixture.alice, from: container)
        case .signOutOfThatSession: try store.signOut(webAuthToken: stolen, in: container, .development)
        }
        #expect(throws: CloudStoreError.self) { try store.session(forWebAuthToken: stolen, in: container, .development) }
        #expect(try store.pushToken(spy.token) == nil, "the courier answers 404")
        #expect(try store.usePushToken(spy.token) == nil)

        // Alice, signed in again, saves a private diary: the old token (a poll or stream opened
        // before the sign-out included) is handed nothing of it.
        _ = try own.modify(
            ModifyRequest(operations: [
                RecordOperation(
                    .create, recordName: "diary-1", recordType: "Diary", fields: ["title": .string("PRIVATE: new bank PIN 4711")])
            ]))
        #expect(try store.claimNotifications(for: [spy]).isEmpty)
        #expect(
            try store.oldestNotification(for: spy) == nil || ending == .signOutOfThatSession, "nothing is queued for a user without tokens")
        #expect(try store.queuedNotificationCounts(container, .development)[spy.token] == nil)
    }

    @Test func signingOutOfOneSessionKeepsTheTokensOfAnother() throws {
        let fixture = try SubscriptionsTests.Fixture()
        let store = fixture.store.store
        let container = fixture.store.container
        let phone = try store.signIn(container, .development, name: "alice", password: "a long passphrase").webAuthToken
        let laptop = try store.signIn(container, .development, name: "alice", password: "a long passphrase").webAuthToken
        let phoneToken = try store.createPushToken(
            container, .development, apnsEnvironment: "development", caller: .user(fixture.alice),
            session: try store.session(forWebAuthToken: phone, in: container, .development).id)
        let laptopSession = try store.session(forWebAuthToken: laptop, in: container, .development).id
        let laptopToken = try store.createPushToken(container, .development, apnsEnvironment: "development", caller: .world)
        // Registered in the laptop's session: it belongs to that session from then on.
        let registered = try store.registerPushToken(
            laptopToken.token, container, .development, apnsEnvironment: "development", caller: .user(fixture.alice), session: laptopSession
        )
        #expect(registered.session == laptopSession && registered.userRecordName == fixture.alice)

        try store.signOut(webAuthToken: phone, in: container, .development)
        #expect(try store.pushToken(phoneToken.token) == nil)
        #expect(try store.pushToken(laptopToken.token)?.userRecordName == fixture.alice)
    }

    @Test func aTokenLeftUnusedEndsAndAPollKeepsItAlive() throws {
        let day: Int64 = 24 * 60 * 60 * 1000
        let fixture = try SubscriptionsTests.Fixture {
            $0.boundPushTokenIdleLifetime = 30 * day; $0.notificationLifetime = 60 * day
        }
        let store = fixture.store.store
        fixture.store.clock.advance(by: 20 * day)
        #expect(try store.usePushToken(fixture.aliceToken.token) != nil, "a poll 20 days on")
        fixture.store.clock.advance(by: 20 * day)
        #expect(try store.pushToken(fixture.aliceToken.token) != nil, "40 days after creation, 20 after its last poll")
        #expect(try store.pushToken(fixture.bobToken.token) == nil, "bob's, never polled, ended after 30 days")
        #expect(try store.pushTokens(fixture.store.container, .development).map(\.token) == [fixture.aliceToken.token])

        // Expired tokens are handed nothing, even by a caller that looked them up before.
        _ = try fixture.database(fixture.bob).modifySubscriptions([SubscriptionOperation(.create, SubscriptionsTests.query("all"))])
        try fixture.database(fixture.alice).create("Note", "n1")
        #expect(try store.claimNotifications(for: [fixture.bobToken]).isEmpty)
    }

    @Test func operatorsListAndRevokeTokensOfOneContainerEnvironment() throws {
        let fixture = try SubscriptionsTests.Fixture()
        let store = fixture.store.store
        let container = fixture.store.container
        let listed = try store.pushTokens(container, .development)
        #expect(Set(listed.map(\.token)) == [fixture.aliceToken.token, fixture.bobToken.token])
        #expect(listed.allSatisfy { $0.lastUsed >= $0.created && $0.bound != nil })
        #expect(try store.pushTokens(container, .development, of: fixture.alice).map(\.token) == [fixture.aliceToken.token])
        #expect(try store.pushTokens(container, .production).isEmpty)

        // Another environment's (or container's) token is not this one's to revoke.
        let id = fixture.aliceToken.id
        #expect(id.count == 16 && !fixture.aliceToken.token.contains(id))
        #expect(throws: CloudStoreError.notFound("No push token \(id) in \(container) production")) {
            try store.revokePushToken(id: id, in: container, .production)
        }
        let other = try ContainerIdentifier("iCloud.com.example.Other")
        try store.createContainer(other)
        #expect(throws: CloudStoreError.self) { try store.revokePushToken(id: id, in: other, .development) }
        #expect(throws: CloudStoreError.self) { try store.revokePushToken(id: "", in: container, .development) }
        #expect(try store.pushToken(fixture.aliceToken.token) != nil)

        #expect(try store.revokePushToken(id: id, in: container, .development) == fixture.aliceToken)
        #expect(try store.pushToken(fixture.aliceToken.token) == nil)
        #expect(try store.pushTokens(container, .development).map(\.token) == [fixture.bobToken.token])
        #expect(throws: CloudStoreError.self) { try store.revokePushToken(id: id, in: container, .development) }
    }
}
