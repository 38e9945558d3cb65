import Crypto
import Foundation
import TestSupport
import Testing

@testable import CloudStore

@Suite struct CredentialTests {
    @Test func apiTokensAre64HexCharactersAndFoundAgain() throws {
        let store = try TemporaryStore()
        let token = try store.store.createAPIToken(
            store.container, .development, name: "web", allowedOrigins: ["https://app.example.com"],
            signInCallback: "https://app.example.com/done")
        #expect(token.token.count == 64)
        #expect(token.token.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(try store.store.apiToken(token.token) == token)
        #expect(try store.store.apiToken(token.token.uppercased()) == token)
        #expect(try store.store.apiToken(String(repeating: "0", count: 64)) == nil)
        #expect(try store.store.apiToken("short") == nil)
        #expect(token.allows(origin: "https://APP.example.com"))
        #expect(!token.allows(origin: "https://evil.example.com"))
        #expect(try !store.store.createAPIToken(store.container, .production).allows(origin: "https://anything.example"))
        #expect(
            try store.store.createAPIToken(store.container, .production, allowedOrigins: ["*"]).allows(origin: "https://anything.example"))
        #expect(try store.store.apiTokens(store.container).map(\.token).contains(token.token))
    }

    @Test func malformedTokenSettingsAndUnknownContainersAreRefused() throws {
        let store = try TemporaryStore()
        #expect(
            throws: CloudStoreError.badRequest(
                "Invalid allowed origin 'https://a.example/path': use '*' or scheme://host[:port], such as https://app.example.com")
        ) {
            try store.store.createAPIToken(store.container, .development, allowedOrigins: ["https://a.example/path"])
        }
        #expect(throws: CloudStoreError.badRequest("Invalid sign-in callback 'not a url': use an absolute URL")) {
            try store.store.createAPIToken(store.container, .development, signInCallback: "not a url")
        }
        #expect(throws: CloudStoreError.notFound("Container iCloud.com.example.Nope does not exist")) {
            try store.store.createAPIToken(try ContainerIdentifier("iCloud.com.example.Nope"), .development)
        }
    }

    @Test func serverKeysAcceptP256PublicKeysOnly() throws {
        let store = try TemporaryStore()
        let privateKey = P256.Signing.PrivateKey()
        let key = try store.store.addServerKey(store.container, .development, publicKeyPEM: privateKey.publicKey.pemRepresentation)
        #expect(key.keyID.count == 64)
        #expect(key.userRecordName.hasPrefix("_") && key.userRecordName.count == 33)
        #expect(try store.store.serverKey(key.keyID) == key)
        #expect(try P256.Signing.PublicKey(pemRepresentation: key.publicKeyPEM).rawRepresentation == privateKey.publicKey.rawRepresentation)

        let p384 = P384.Signing.PrivateKey().publicKey.pemRepresentation
        for bad in [p384, privateKey.pemRepresentation, "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----", ""] {
            #expect(throws: CloudStoreError.self) { try store.store.addServerKey(store.container, .development, publicKeyPEM: bad) }
        }
    }

    @Test func usersSignInAndGetTokensThatExpireAndCanBeRevoked() throws {
        let store = try TemporaryStore()
        let user = try store.store.addUser(store.container, name: "alice", password: "correct horse", emailAddress: "alice@example.com")
        #expect(user.userRecordName.hasPrefix("_"))
        #expect(user.userRecordName.count == 33)
        #expect(throws: CloudStoreError.exists("A user named 'ALICE' already exists in iCloud.com.example.Tests")) {
            try store.store.addUser(store.container, name: "ALICE", password: "another password")
        }
        #expect(throws: CloudStoreError.authenticationFailed("Incorrect name or password")) {
            try store.store.signIn(store.container, .development, name: "alice", password: "wrong password")
        }
        #expect(throws: CloudStoreError.authenticationFailed("Incorrect name or password")) {
            try store.store.signIn(store.container, .development, name: "nobody", password: "correct horse")
        }

        let (signedIn, token) = try store.store.signIn(store.container, .development, name: "Alice", password: "correct horse")
        #expect(signedIn == user)
        #expect(token.count >= 100)
        #expect(token.allSatisfy { $0.isLetter || $0.isNumber || "+/=_".contains($0) })
        let session = try store.store.session(forWebAuthToken: token, in: store.container, .development)
        #expect(session.userRecordName == user.userRecordName)

        // A renewed token is different, and the old one keeps working while the session is used.
        let renewed = store.store.webAuthToken(for: session)
        #expect(renewed != token)
        #expect(try store.store.session(forWebAuthToken: token, in: store.container, .development) == session)

        // 30 minutes without use end the session's tokens; a token issued later counts as use.
        store.clock.advance(by: 29 * 60 * 1000)
        let fresh = store.store.webAuthToken(for: session)
        store.clock.advance(by: 2 * 60 * 1000)
        #expect(throws: CloudStoreError.authenticationRequired("The web auth token has expired; sign in again")) {
            try store.store.session(forWebAuthToken: token, in: store.container, .development)
        }
        #expect(try store.store.session(forWebAuthToken: fresh, in: store.container, .development) == session)

        // Another container, a forged token, and a signed-out session all need a new sign-in.
        let other = try ContainerIdentifier("iCloud.com.example.Other")
        try store.store.createContainer(other)
        #expect(throws: CloudStoreError.authenticationRequired("The web auth token is not valid; sign in again")) {
            try store.store.session(forWebAuthToken: fresh, in: other, .development)
        }
        var forged = Array(fresh)
        forged[40] = forged[40] == "A" ? "B" : "A"
        #expect(throws: CloudStoreError.authenticationRequired("The web auth token is not valid; sign in again")) {
            try store.store.session(forWebAuthToken: String(forged), in: store.container, .development)
        }
        try store.store.signOut(webAuthToken: fresh, in: store.container, .development)
        #expect(throws: CloudStoreError.authenticationRequired("The web auth token is not valid; sign in again")) {
            try store.store.session(forWebAuthToken: fresh, in: store.container, .development)
        }
    }

    @Test func theTokenHandedBackIsReusedForASecondAndRefusedOnceItsSessionEnds() throws {
        let store = try TemporaryStore()
        try store.store.addUser(store.container, name: "alice", password: "correct horse", emailAddress: "alice@example.com")
        let (_, signedIn) = try store.store.signIn(store.container, .development, name: "alice", password: "correct horse")
        let session = try store.store.session(forWebAuthToken: signedIn, in: store.container, .development)
        let first = store.store.webAuthToken(for: session)
        #expect(first != signedIn, "the first answer rotates the token sign-in gave")
        store.clock.advance(by: 500)
        #expect(store.store.webAuthToken(for: session) == first, "answers within a second hand back the same token")
        store.clock.advance(by: 1_000)
        let later = store.store.webAuthToken(for: session)
        #expect(later != first)
        // Each opens (from the cache or not) to its own issue time, as the token sealed it.
        let issuedFirst = try #require(WebAuthToken.decode(first, with: store.store.webAuthTokenKey)?.issued)
        #expect(store.store.webAuthTokens.open(later)?.issued ?? 0 >= issuedFirst + 1_500)
        #expect(WebAuthToken.decode(later, with: store.store.webAuthTokenKey) == store.store.webAuthTokens.open(later))
        #expect(try store.store.session(forWebAuthToken: later, in: store.container, .development) == session)
        // A token that opened before is still checked against its session.
        try store.store.signOut(webAuthToken: later, in: store.container, .development)
        for token in [signedIn, first, later] {
            #expect(throws: CloudStoreError.self) { try store.store.session(forWebAuthToken: token, in: store.container, .development) }
        }
        // A token altered by one character opens to nothing, though its original opened before.
        var altered = Array(first.utf8)
        altered[20] = altered[20] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(store.store.webAuthTokens.open(String(decoding: altered, as: UTF8.self)) == nil)
        #expect(store.store.webAuthTokens.open(first)?.sessionID == session.id)
    }

    @Test func aClientThatNeverRotatesStaysSignedInWhileItKeepsUsingItsToken() throws {
        let store = try TemporaryStore()
        try store.store.addUser(store.container, name: "dora", password: "a long password")
        let (_, token) = try store.store.signIn(store.container, .development, name: "dora", password: "a long password")
        for _ in 0..<6 {
            store.clock.advance(by: 20 * 60 * 1000)
            #expect(try store.store.session(forWebAuthToken: token, in: store.container, .development).userRecordName.isEmpty == false)
        }
        store.clock.advance(by: 31 * 60 * 1000)
        #expect(throws: CloudStoreError.authenticationRequired("The web auth token has expired; sign in again")) {
            try store.store.session(forWebAuthToken: token, in: store.container, .development)
        }
    }

    @Test func aSessionEndsAtItsMaximumAgeHoweverMuchItIsUsed() throws {
        let store = try TemporaryStore()
        try store.store.addUser(store.container, name: "erin", password: "a long password")
        let (_, token) = try store.store.signIn(
            store.container, .development, name: "erin", password: "a long password", keepSignedIn: true)
        let day: Int64 = 24 * 60 * 60 * 1000
        for _ in 0..<29 {
            store.clock.advance(by: day)
            _ = try store.store.session(forWebAuthToken: token, in: store.container, .development)
        }
        store.clock.advance(by: day + 1000)
        #expect(throws: CloudStoreError.authenticationRequired("The session has reached its maximum age; sign in again")) {
            try store.store.session(forWebAuthToken: token, in: store.container, .development)
        }
    }

    @Test func keepSignedInSessionsLastTwoWeeksUnused() throws {
        let store = try TemporaryStore()
        try store.store.addUser(store.container, name: "bob", password: "a long password")
        let (_, token) = try store.store.signIn(store.container, .development, name: "bob", password: "a long password", keepSignedIn: true)
        store.clock.advance(by: 13 * 24 * 60 * 60 * 1000)
        #expect(try store.store.session(forWebAuthToken: token, in: store.container, .development).userRecordName.isEmpty == false)
        store.clock.advance(by: 15 * 24 * 60 * 60 * 1000)
        #expect(throws: CloudStoreError.self) { try store.store.session(forWebAuthToken: token, in: store.container, .development) }
    }

    @Test func passwordsNeedEightCharacters() throws {
        let store = try TemporaryStore()
        #expect(throws: CloudStoreError.badRequest("A password needs at least 8 characters")) {
            try store.store.addUser(store.container, name: "short", password: "1234567")
        }
        let user = try store.store.addUser(store.container, name: "long", password: "12345678")
        #expect(throws: CloudStoreError.badRequest("A password needs at least 8 characters")) {
            try store.store.setPassword("short", of: user.userRecordName, in: store.container)
        }
    }

    @Test func revokedCredentialsStopWorkingAtOnceInAnotherStoreOnTheSameDirectory() throws {
        let store = try TemporaryStore()
        // A second store stands for another process (the command line) on the same directory.
        let other = try store.anotherProcess()

        let apiToken = try store.store.createAPIToken(store.container, .development)
        #expect(try store.store.apiToken(apiToken.token) == apiToken)
        try other.revokeAPIToken(apiToken.token)
        #expect(try TestBackend.afterAnotherProcessChanged({ try store.store.apiToken(apiToken.token) }, seen: { $0 == nil }) == nil)
        #expect(throws: CloudStoreError.notFound("No API token \(apiToken.token)")) { try other.revokeAPIToken(apiToken.token) }

        let key = try store.store.addServerKey(
            store.container, .development, publicKeyPEM: P256.Signing.PrivateKey().publicKey.pemRepresentation)
        #expect(try store.store.serverKey(key.keyID) == key)
        try other.revokeServerKey(key.keyID)
        #expect(try TestBackend.afterAnotherProcessChanged({ try store.store.serverKey(key.keyID) }, seen: { $0 == nil }) == nil)

        let user = try store.store.addUser(store.container, name: "frank", password: "a long password")
        let first = try store.store.signIn(store.container, .development, name: "frank", password: "a long password").webAuthToken
        let second = try store.store.signIn(store.container, .development, name: "frank", password: "a long password").webAuthToken
        #expect(try store.store.openSessionCount(of: user.userRecordName, in: store.container) == 2)
        #expect(try other.signOutEverywhere(user.userRecordName, in: store.container) == 2)
        for token in [first, second] {
            #expect(throws: CloudStoreError.self) { try store.store.session(forWebAuthToken: token, in: store.container, .development) }
        }

        let third = try store.store.signIn(store.container, .development, name: "frank", password: "a long password").webAuthToken
        try other.setPassword("a new long password", of: user.userRecordName, in: store.container)
        #expect(throws: CloudStoreError.self) { try store.store.session(forWebAuthToken: third, in: store.container, .development) }
        #expect(throws: CloudStoreError.authenticationFailed("Incorrect name or password")) {
            try store.store.signIn(store.container, .development, name: "frank", password: "a long password")
        }
        let fourth = try store.store.signIn(store.container, .development, name: "frank", password: "a new long password").webAuthToken
        try other.removeUser(user.userRecordName, from: store.container)
        #expect(throws: CloudStoreError.self) { try store.store.session(forWebAuthToken: fourth, in: store.container, .development) }
        #expect(try store.store.user(user.userRecordName, in: store.container) == nil)
    }

    @Test func passwordGuessingIsSlowedThenRefusedPerAccountAddressAndPerAddress() throws {
        let store = try TemporaryStore()
        try store.store.addUser(store.container, name: "grace", password: "the right password")
        // Five failures are free; the sixth attempt at once is held off.
        for _ in 0..<5 {
            #expect(throws: CloudStoreError.authenticationFailed("Incorrect name or password")) {
                try store.store.signIn(
                    store.container, .development, name: "grace", password: "a wrong guess", clientAddress: "203.0.113.7")
            }
        }
        do {
            _ = try store.store.signIn(
                store.container, .development, name: "grace", password: "the right password", clientAddress: "203.0.113.7")
            Issue.record("a sixth attempt at once was let through")
        } catch CloudStoreError.throttled(let reason, let retryAfter) {
            #expect(reason.contains("this account"))
            #expect(retryAfter == 1)
        }
        // Waiting as told lets the next attempt through; each failure doubles the wait.
        var waits: [Int] = []
        for _ in 0..<5 {
            store.clock.advance(by: 60_000)
            #expect(throws: CloudStoreError.authenticationFailed("Incorrect name or password")) {
                try store.store.signIn(
                    store.container, .development, name: "grace", password: "a wrong guess", clientAddress: "203.0.113.7")
            }
            do {
                _ = try store.store.signIn(
                    store.container, .development, name: "grace", password: "a wrong guess", clientAddress: "203.0.113.7")
            } catch CloudStoreError.throttled(_, let retryAfter) {
                waits.append(retryAfter)
            }
        }
        #expect(waits == [2, 4, 8, 16, 32])
        // The right password after waiting clears this address's failures on the account.
        store.clock.advance(by: 60_000)
        #expect(
            try store.store.signIn(
                store.container, .development, name: "grace", password: "the right password", clientAddress: "203.0.113.7"
            ).user.name == "grace")

        // Twenty failures from one address refuse that address the account for a quarter of an hour.
        for index in 0..<20 {
            store.clock.advance(by: 61_000)
            _ = try? store.store.signIn(
                store.container, .development, name: "grace", password: "guess \(index)", clientAddress: "198.51.100.1")
        }
        do {
            _ = try store.store.signIn(
                store.container, .development, name: "grace", password: "the right password", clientAddress: "198.51.100.1")
            Issue.record("an address with twenty failures on the account was let in")
        } catch CloudStoreError.throttled(let reason, let retryAfter) {
            #expect(reason.contains("refused for a while") && retryAfter == 900)
        }
        store.clock.advance(by: 16 * 60_000)
        #expect(
            try store.store.signIn(
                store.container, .development, name: "grace", password: "the right password", clientAddress: "198.51.100.1"
            ).user.name == "grace")

        // One address guessing at many accounts is held off too.
        for index in 0..<20 {
            _ = try? store.store.signIn(
                store.container, .development, name: "user\(index)", password: "guess", clientAddress: "203.0.113.99")
        }
        do {
            _ = try store.store.signIn(
                store.container, .development, name: "grace", password: "the right password", clientAddress: "203.0.113.99")
            Issue.record("an address with twenty failures was let through at once")
        } catch CloudStoreError.throttled(let reason, _) {
            #expect(reason.contains("this address"))
        }
    }

    @Test func pushTokensAreCreatedAndRegisteredToOneUserOnly() throws {
        let store = try TemporaryStore()
        let token = try store.store.createPushToken(store.container, .development, apnsEnvironment: "development", caller: .world)
        // Standard base64 with padding, as some clients decode it.
        #expect(Data(base64Encoded: token.token)?.count == 32)
        #expect(token.token.hasSuffix("="))
        let registered = try store.store.registerPushToken(
            token.token, store.container, .development, apnsEnvironment: "development", caller: .user("_u"))
        #expect(registered.userRecordName == "_u")
        #expect(try store.store.pushToken(token.token)?.userRecordName == "_u")
        // Nobody else may take it over, nor the world let it go.
        #expect(throws: CloudStoreError.accessDenied("The apnsToken is registered to another user")) {
            try store.store.registerPushToken(
                token.token, store.container, .development, apnsEnvironment: "development", caller: .user("_v"))
        }
        #expect(throws: CloudStoreError.accessDenied("The apnsToken is registered to another user")) {
            try store.store.registerPushToken(token.token, store.container, .development, apnsEnvironment: "development", caller: .world)
        }
        #expect(try store.store.pushToken(token.token)?.userRecordName == "_u")
        #expect(throws: CloudStoreError.badRequest("The apnsToken belongs to another container or environment")) {
            try store.store.registerPushToken(token.token, store.container, .production, apnsEnvironment: "production", caller: .world)
        }
        #expect(throws: CloudStoreError.badRequest("apnsToken must be 1 to 256 characters of base64")) {
            try store.store.registerPushToken("bad token!", store.container, .development, apnsEnvironment: "development", caller: .world)
        }
        let unknown = try store.store.registerPushToken(
            "abcDEF123", store.container, .development, apnsEnvironment: "development", caller: .world)
        #expect(unknown.token == "abcDEF123")
    }

    @Test func theWorldCannotMakePushTokensWithoutLimit() throws {
        let store = try TemporaryStore { $0.maximumUnboundPushTokens = 30 }
        var made = 0
        var throttled: Int?
        for _ in 0..<25 {
            do {
                _ = try store.store.createPushToken(
                    store.container, .development, apnsEnvironment: "development", caller: .world, clientAddress: "203.0.113.5")
                made += 1
            } catch CloudStoreError.throttled(_, let retryAfter) {
                throttled = retryAfter
                break
            }
        }
        #expect(made == 20)
        #expect(throttled == 6)
        // Other addresses fill the rest, then the container's environment is full.
        var full: CloudStoreError?
        for index in 0..<20 {
            do {
                _ = try store.store.createPushToken(
                    store.container, .development, apnsEnvironment: "development", caller: .world, clientAddress: "198.51.100.\(index)")
            } catch let error as CloudStoreError {
                full = error
                break
            }
        }
        guard case .quotaExceeded = full else { Issue.record("expected QUOTA_EXCEEDED, got \(String(describing: full))"); return }
        // Signed-in users are not held to the count of tokens nobody holds.
        #expect(
            try store.store.createPushToken(store.container, .development, apnsEnvironment: "development", caller: .user("_w"))
                .userRecordName == "_w")
        // Tokens nobody registered end after twelve hours, making room again.
        store.clock.advance(by: 13 * 60 * 60 * 1000)
        #expect(
            try store.store.createPushToken(
                store.container, .development, apnsEnvironment: "development", caller: .world, clientAddress: "192.0.2.9"
            ).userRecordName == nil)
    }
}
