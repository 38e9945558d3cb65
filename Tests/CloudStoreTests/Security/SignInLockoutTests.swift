import CloudStore
import TestSupport
import Testing

/// A guesser slows an account down but cannot lock its owner out, and operators see the
/// accounts being guessed at (review N7).
@Suite struct SignInLockoutTests {
    /// The review's proof: more than twenty wrong passwords from one address, each after waiting
    /// out the delay, until that address is refused for a quarter of an hour.
    private static func guessUntilRefused(_ store: TemporaryStore, from address: String, _ attempt: (String) throws -> Void) throws -> Int {
        var failures = 0
        for index in 0..<40 {
            store.clock.advance(by: 61_000)
            do {
                try attempt("wrong guess \(index)")
                Issue.record("a wrong password was let in")
            } catch CloudStoreError.authenticationFailed {
                failures += 1
            } catch CloudStoreError.throttled(let reason, _) where reason.contains("refused for a while") {
                return failures
            }
        }
        Issue.record("forty guesses from one address were never refused")
        return failures
    }

    /// A store with an app user whose password is `the right password`, and a sign-in as them
    /// with a password from an address.
    private static func user(_ name: String) throws -> (TemporaryStore, AppUser, (String, String) throws -> AppUser) {
        let store = try TemporaryStore()
        let user = try store.store.addUser(store.container, name: name, password: "the right password")
        return (
            store, user,
            { password, address in
                try store.store.signIn(store.container, .development, name: name, password: password, clientAddress: address).user
            }
        )
    }

    @Test func anAppUserSignsInFromAnotherAddressWhileAGuesserIsRefused() throws {
        let (store, bob, signIn) = try Self.user("bob")
        let failures = try Self.guessUntilRefused(store, from: "198.51.100.7") { _ = try signIn($0, "198.51.100.7") }
        #expect(failures == 20)
        // The owner, from an address without failures, gets in at once; the guesser stays refused.
        #expect(try signIn("the right password", "203.0.113.5").userRecordName == bob.userRecordName)
        do {
            _ = try signIn("the right password", "198.51.100.7")
            Issue.record("the guessing address was let in")
        } catch CloudStoreError.throttled(let reason, let retryAfter) {
            #expect(reason.hasPrefix("Too many failed sign-ins for this account from this address; sign-in is refused for a while"))
            #expect(retryAfter > 800)
        }
        // The attack goes on, and the owner still gets in.
        for index in 0..<30 {
            _ = try? signIn("more guesses \(index)", "198.51.100.\(100 + index)")
        }
        #expect(try signIn("the right password", "192.0.2.44").userRecordName == bob.userRecordName)

        let attacks = store.store.signInAttacks()
        #expect(attacks.count == 1)
        let attack = try #require(attacks.first)
        #expect(attack.account == .user(container: store.container, name: "bob"))
        #expect(attack.failures == 50 && attack.addresses == 31)
    }

    @Test func anOperatorSignsInFromAnotherAddressWhileAGuesserIsRefused() throws {
        let store = try TemporaryStore()
        try store.store.addOperator("bob", password: "operator password")
        let failures = try Self.guessUntilRefused(store, from: "198.51.100.7") {
            _ = try store.store.signInOperator("bob", password: $0, clientAddress: "198.51.100.7")
        }
        #expect(failures == 20)
        #expect(
            try store.store.signInOperator("bob", password: "operator password", clientAddress: "203.0.113.5").session.operatorName == "bob"
        )
        #expect(throws: CloudStoreError.self) {
            try store.store.signInOperator("bob", password: "operator password", clientAddress: "198.51.100.7")
        }
        #expect(store.store.signInAttacks().map(\.account) == [.operator(name: "bob")])
        #expect(store.store.signInAttacks().first?.addresses == 1)
    }

    @Test func guessesFromManyAddressesAreSlowedOnTheAccountButNeverRefuseItsOwner() throws {
        let (store, _, signIn) = try Self.user("carol")
        // One guess each from twelve addresses: every first guess is heard.
        for index in 0..<12 {
            #expect(throws: CloudStoreError.authenticationFailed("Incorrect name or password")) {
                try signIn("guess", "198.51.100.\(index)")
            }
        }
        // A second guess from any of them waits for the account's failures, not just its own one.
        do {
            store.clock.advance(by: 2_000)
            _ = try signIn("guess again", "198.51.100.0")
            Issue.record("a second guess was heard at once on an account with twelve failures")
        } catch CloudStoreError.throttled(let reason, let retryAfter) {
            #expect(reason.contains("this account;") && retryAfter == 58)
        }
        // Its owner, who mistyped once meanwhile, waits no longer than a minute after their own failure.
        #expect(throws: CloudStoreError.authenticationFailed("Incorrect name or password")) { try signIn("typo", "203.0.113.5") }
        store.clock.advance(by: 60_000)
        #expect(throws: Never.self) { _ = try signIn("the right password", "203.0.113.5") }
        // Ten failures are what a forgetful owner does not reach: the owner's one typo is forgotten on success.
        #expect(store.store.signInAttacks().first?.failures == 12)
    }

    @Test func hoppingBetweenTheAddressesOfOneIPv6NetworkGainsNoFreshAttempts() throws {
        let (store, _, signIn) = try Self.user("dave")
        for index in 0..<5 {
            #expect(throws: CloudStoreError.authenticationFailed("Incorrect name or password")) {
                try signIn("guess", "2001:db8:1:2::\(index + 1)")
            }
        }
        // Another address of the same /64 is the same client: it waits.
        #expect(throws: CloudStoreError.self) { try signIn("guess", "2001:db8:1:2:ffff::9") }
        // Another network, and an IPv4 address written as IPv6, are other clients.
        #expect(throws: Never.self) { _ = try signIn("the right password", "2001:db8:1:3::1") }
        #expect(throws: Never.self) { _ = try signIn("the right password", "::ffff:192.0.2.1") }
        #expect(store.store.signInAttacks().isEmpty, "five failures are not an attack")
    }
}
