import Crypto
import Foundation
import Testing
@testable import CloudStore
import TestSupport

@Suite struct CredentialTests {
    @Test func apiTokensAre64HexCharactersAndFoundAgain() throws {
        let store = try TemporaryStore()
        let token = try store.store.createAPIToken(
            store.container, .development, name: "web", allowedOrigins: ["https://app.example.com"], signInCallback: "https://app.example.com/done")
        #expect(token.token.count == 64)
        #expect(token.token.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(try store.store.apiToken(token.token) == token)
        #expect(try store.store.apiToken(token.token.uppercased()) == token)
        #expect(try store.store.apiToken(String(repeating: "0", count: 64)) == nil)
        #expect(try store.store.apiToken("short") == nil)
        #expect(token.allows(origin: "https://APP.example.com"))
        #expect(!token.allows(origin: "https://evil.example.com"))
        #expect(try store.store.createAPIToken(store.container, .production).allows(origin: "https://anything.example"))
        #expect(try store.store.apiTokens(store.container).map(\.token).contains(token.token))
    }

    @Test func malformedTokenSettingsAndUnknownContainersAreRefused() throws {
        let store = try TemporaryStore()
        #expect(throws: CloudStoreError.badRequest("Invalid allowed origin 'https://a.example/path': use '*' or scheme://host[:port], such as https://app.example.com")) {
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
        #expect(try P256.Signing.PublicKey(pemRepresentation: key.publicKeyPEM) .rawRepresentation == privateKey.publicKey.rawRepresentation)

        let p384 = P384.Signing.PrivateKey().publicKey.pemRepresentation
        for bad in [p384, privateKey.pemRepresentation, "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----", ""] {
            #expect(throws: CloudStoreError.self) { try store.store.addServerKey(store.container, .development, publicKeyPEM: bad) }
        }
    }

    @Test func usersSignInAndGetTokensThatExpireAndCanBeRevoked() throws {
        let store = try TemporaryStore()
        let user = try store.store.addUser(store.container, name: "alice", password: "correct horse", emailAddress: "alice@example.com")
        #expect(user.userRecordName.count == 33)
        #expect(throws: CloudStoreError.exists("A user named 'ALICE' already exists in iCloud.com.example.Tests")) {
            try store.store.addUser(store.container, name: "ALICE", password: "x")
        }
        #expect(throws: CloudStoreError.authenticationFailed("Incorrect name or password")) {
            try store.store.signIn(store.container, name: "alice", password: "wrong")
        }
        #expect(throws: CloudStoreError.authenticationFailed("Incorrect name or password")) {
            try store.store.signIn(store.container, name: "nobody", password: "correct horse")
        }

        let (signedIn, token) = try store.store.signIn(store.container, name: "Alice", password: "correct horse")
        #expect(signedIn == user)
        #expect(token.count >= 100)
        #expect(token.allSatisfy { $0.isLetter || $0.isNumber || "+/=_".contains($0) })
        let session = try store.store.session(forWebAuthToken: token, in: store.container)
        #expect(session.userRecordName == user.userRecordName)

        // A renewed token is different, and the old one keeps working within its lifetime.
        let renewed = store.store.webAuthToken(for: session)
        #expect(renewed != token)
        #expect(try store.store.session(forWebAuthToken: token, in: store.container) == session)

        // Expiry: 30 minutes after issue, each token on its own.
        store.clock.advance(by: 29 * 60 * 1000)
        let fresh = store.store.webAuthToken(for: session)
        store.clock.advance(by: 2 * 60 * 1000)
        #expect(throws: CloudStoreError.authenticationFailed("The web auth token has expired; sign in again")) {
            try store.store.session(forWebAuthToken: token, in: store.container)
        }
        #expect(try store.store.session(forWebAuthToken: fresh, in: store.container) == session)

        // Another container, a forged token, and a signed-out session are all refused.
        let other = try ContainerIdentifier("iCloud.com.example.Other")
        try store.store.createContainer(other)
        #expect(throws: CloudStoreError.authenticationFailed("The web auth token is not valid; sign in again")) {
            try store.store.session(forWebAuthToken: fresh, in: other)
        }
        var forged = Array(fresh)
        forged[40] = forged[40] == "A" ? "B" : "A"
        #expect(throws: CloudStoreError.authenticationFailed("The web auth token is not valid")) {
            try store.store.session(forWebAuthToken: String(forged), in: store.container)
        }
        try store.store.signOut(webAuthToken: fresh, in: store.container)
        #expect(throws: CloudStoreError.authenticationFailed("The web auth token is not valid; sign in again")) {
            try store.store.session(forWebAuthToken: fresh, in: store.container)
        }
    }

    @Test func keepSignedInTokensLastTwoWeeks() throws {
        let store = try TemporaryStore()
        try store.store.addUser(store.container, name: "bob", password: "pw")
        let (_, token) = try store.store.signIn(store.container, name: "bob", password: "pw", keepSignedIn: true)
        store.clock.advance(by: 13 * 24 * 60 * 60 * 1000)
        #expect(try store.store.session(forWebAuthToken: token, in: store.container).userRecordName.isEmpty == false)
        store.clock.advance(by: 2 * 24 * 60 * 60 * 1000)
        #expect(throws: CloudStoreError.self) { try store.store.session(forWebAuthToken: token, in: store.container) }
    }

    @Test func changesByAnotherStoreOnTheSameDirectoryAreSeenAtOnce() throws {
        let store = try TemporaryStore()
        try store.store.addUser(store.container, name: "carol", password: "pw")
        let (_, token) = try store.store.signIn(store.container, name: "carol", password: "pw")
        #expect(try store.store.apiToken(String(repeating: "a", count: 64)) == nil)
        _ = try store.store.session(forWebAuthToken: token, in: store.container)

        // A second store stands for another process (the command line) on the same directory.
        let clock = store.clock
        let other = try CloudStore(configuration: CloudStoreConfiguration(dataDirectory: store.directory, clock: { clock.tick() }))
        let created = try other.createAPIToken(store.container, .development)
        #expect(try store.store.apiToken(created.token) == created)
        try other.signOut(webAuthToken: token, in: store.container)
        #expect(throws: CloudStoreError.self) { try store.store.session(forWebAuthToken: token, in: store.container) }
    }

    @Test func pushTokensAreCreatedAndRegistered() throws {
        let store = try TemporaryStore()
        let token = try store.store.createPushToken(store.container, .development, apnsEnvironment: "development", userRecordName: nil)
        #expect(Data(base64Encoded: token.token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") + "=")?.count == 32)
        let registered = try store.store.registerPushToken(token.token, store.container, .development, apnsEnvironment: "development", userRecordName: "_u")
        #expect(registered.userRecordName == "_u")
        #expect(try store.store.pushToken(token.token)?.userRecordName == "_u")
        #expect(throws: CloudStoreError.badRequest("The apnsToken belongs to another container or environment")) {
            try store.store.registerPushToken(token.token, store.container, .production, apnsEnvironment: "production", userRecordName: nil)
        }
        #expect(throws: CloudStoreError.badRequest("apnsToken must be 1 to 256 characters of base64")) {
            try store.store.registerPushToken("bad token!", store.container, .development, apnsEnvironment: "development", userRecordName: nil)
        }
        let unknown = try store.store.registerPushToken("abcDEF123", store.container, .development, apnsEnvironment: "development", userRecordName: nil)
        #expect(unknown.token == "abcDEF123")
    }
}
