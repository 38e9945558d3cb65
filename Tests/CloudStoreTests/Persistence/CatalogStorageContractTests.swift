import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CloudStore

/// A backend the catalog can be kept in.
enum CatalogBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }
}

/// The change counter as stored, past any cache: what a touch must leave alone.
protocol StoredChangeCounter {
    /// The change counter as the database holds it now.
    func storedChangeCounter() throws -> Int64
}

extension SQLiteCatalogStore: StoredChangeCounter {}
extension PostgresCatalogStore: StoredChangeCounter {}

/// Everything a catalog backend offers.
typealias ContractCatalog = CatalogStorage & CredentialStorage & OperatorStorage & LifecycleStorage & StoredChangeCounter

/// A fresh, empty catalog on one backend, with what keeps its file or database alive.
struct OpenCatalog {
    let store: any ContractCatalog
    private let keptAlive: any Sendable

    /// Opens a catalog; on PostgreSQL, `unicodeLocale` makes its database fold and order text
    /// by Unicode rules (the test cluster's databases use the C locale).
    init(_ backend: CatalogBackend, unicodeLocale: Bool = false) throws {
        switch backend {
        case .sqlite:
            let directory = try TemporaryDirectory(prefix: "catalog-contract")
            store = try SQLiteCatalogStore(path: directory.path + "/cumulus.sqlite", synchronous: .normal)
            keptAlive = directory
        case .postgres where unicodeLocale:
            let database = try UnicodeLocaleDatabase()
            store = try PostgresCatalogStore(url: database.url)
            keptAlive = database
        case .postgres:
            let database = try TestPostgres.makeDatabase()
            store = try PostgresCatalogStore(url: database.url)
            keptAlive = database
        }
    }

    /// Runs `body`, a write, and expects it to move the change counter by one, as the cached
    /// counter of this same store sees at once.
    @discardableResult
    func expectMoves<T>(_ what: Comment, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T) throws -> T {
        let cached = try store.changeCounter()
        let stored = try store.storedChangeCounter()
        let result = try body()
        #expect(try store.storedChangeCounter() == stored + 1, what, sourceLocation: sourceLocation)
        #expect(try store.changeCounter() != cached, what, sourceLocation: sourceLocation)
        return result
    }

    /// Runs `body` and expects the stored change counter to stay where it was.
    @discardableResult
    func expectStill<T>(_ what: Comment, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T) throws -> T {
        let stored = try store.storedChangeCounter()
        let result = try body()
        #expect(try store.storedChangeCounter() == stored, what, sourceLocation: sourceLocation)
        return result
    }
}

/// A database whose default collation is `C.UTF-8`, under which `lower` folds every letter,
/// not ASCII alone; dropped on release.
final class UnicodeLocaleDatabase: Sendable {
    let url: String
    private let name: String
    private let serverURL: String

    init() throws {
        serverURL = try TestPostgres.serverURL()
        name = "test_utf8_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        url = serverURL.replacingOccurrences(of: "/postgres", with: "/\(name)", options: .backwards)
        try RawPostgres(url: serverURL).execute("CREATE DATABASE \(name) TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C.UTF-8'")
    }

    deinit { _ = try? RawPostgres(url: serverURL).execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
}

/// The same assertions against every catalog backend: SQLite, the embedded default, and
/// PostgreSQL, which several processes share.
@Suite(.enabled(if: TestBackend.isDefaultRun, "Runs against PostgreSQL itself, once, in the default run"))
struct CatalogStorageContractTests {
    static let container = try! ContainerIdentifier("iCloud.com.example.Contract")
    static let other = try! ContainerIdentifier("iCloud.com.example.Other")
    let container = Self.container
    let other = Self.other

    // MARK: - Containers and settings

    @Test(arguments: CatalogBackend.allCases)
    func containersAreListedInOrderAndCreatedOnce(_ backend: CatalogBackend) throws {
        let catalog = try OpenCatalog(backend)
        let store = catalog.store
        #expect(try store.containers() == [])
        let z = try ContainerIdentifier("iCloud.com.example.Zeta")
        let a = try ContainerIdentifier("iCloud.com.example.Alpha")
        #expect(
            try catalog.expectMoves("create") { try store.createContainer(z, created: 10) } == ContainerInfo(identifier: z, created: 10))
        try catalog.expectMoves("create") { _ = try store.createContainer(a, created: 20) }
        #expect(try store.containers() == [ContainerInfo(identifier: a, created: 20), ContainerInfo(identifier: z, created: 10)])
        #expect(try store.container(z) == ContainerInfo(identifier: z, created: 10))
        #expect(try store.container(container) == nil)
        // A refused write leaves nothing behind, the counter included.
        try catalog.expectStill("a refused create") {
            #expect(throws: CloudStoreError.exists("Container iCloud.com.example.Zeta already exists")) {
                try store.createContainer(z, created: 30)
            }
        }
        #expect(try store.container(z)?.created == 10)
    }

    @Test(arguments: CatalogBackend.allCases)
    func theSecretStaysUntilRotated(_ backend: CatalogBackend) throws {
        let catalog = try OpenCatalog(backend)
        let secret = try catalog.store.secret()
        #expect(secret.count == 32)
        #expect(secret != [UInt8](repeating: 0, count: 32))
        #expect(try catalog.store.secret() == secret)
        try catalog.expectMoves("rotate") { try catalog.store.rotateSecret() }
        let rotated = try catalog.store.secret()
        #expect(rotated.count == 32)
        #expect(rotated != secret)
    }

    @Test(arguments: CatalogBackend.allCases)
    func touchesDoNotMoveTheCounterButAreKept(_ backend: CatalogBackend) throws {
        let catalog = try OpenCatalog(backend)
        let store = catalog.store
        try store.insertSession(
            WebSession(
                id: "s", container: container, environment: .development, userRecordName: "_u", idleLifetime: 60_000, created: 1_000,
                expires: 9_000))
        try store.insertOperatorSession(
            OperatorSession(id: "o", operatorName: "root", csrfToken: "c", created: 1_000, expires: 9_000), lastSeen: 1_000)
        try store.insertManagementToken(
            ManagementToken(id: "m", operatorName: "root", name: "ci", created: 1_000, lastUsed: nil), secretHash: "h")
        let counter = try store.changeCounter()
        try catalog.expectStill("touches") {
            try store.touchSession("s", at: 5_000)
            try store.touchSession("s", at: 4_000)
            try store.touchOperatorSession("o", at: 6_000)
            try store.touchOperatorSession("o", at: 2_000)
            try store.touchManagementToken("m", at: 7_000)
            try store.touchManagementToken("m", at: 3_000)
            try store.touchSession("absent", at: 1)
        }
        #expect(try store.changeCounter() == counter)
        // A session's last use never goes back; a token's is the last one recorded.
        #expect(try store.session("s")?.lastSeen == 5_000)
        #expect(try store.operatorSession("o")?.lastSeen == 6_000)
        #expect(try store.managementToken("m")?.token.lastUsed == 3_000)
    }

    // MARK: - API tokens and server keys

    @Test(arguments: CatalogBackend.allCases)
    func apiTokensRoundTripAndAreRemoved(_ backend: CatalogBackend) throws {
        let catalog = try OpenCatalog(backend)
        let store = catalog.store
        let late = APIToken(
            token: "b1", container: container, environment: .production, name: "web",
            allowedOrigins: ["https://a.example", "https://b.example"],
            signInCallback: "https://a.example/done", created: 2)
        let early = APIToken(
            token: "c1", container: container, environment: .development, name: "app", allowedOrigins: [], signInCallback: nil, created: 1)
        let elsewhere = APIToken(
            token: "a1", container: other, environment: .development, name: "x", allowedOrigins: ["*"], signInCallback: nil, created: 1)
        for token in [late, early, elsewhere] { try catalog.expectMoves("insert token") { try store.insertAPIToken(token) } }
        #expect(try store.apiToken("b1") == late)
        #expect(try store.apiToken("c1") == early)
        #expect(try store.apiToken("nope") == nil)
        #expect(try store.apiTokens(in: container) == [early, late])
        #expect(try store.apiTokens(in: other) == [elsewhere])
        #expect(throws: CloudStoreError.self) { try store.insertAPIToken(late) }
        #expect(try catalog.expectMoves("delete token") { try store.deleteAPIToken("b1") })
        #expect(try store.deleteAPIToken("b1") == false)
        #expect(try store.apiToken("b1") == nil)
        #expect(try store.apiTokens(in: container) == [early])
    }

    @Test(arguments: CatalogBackend.allCases)
    func serverKeysRoundTripAndAreRemoved(_ backend: CatalogBackend) throws {
        let catalog = try OpenCatalog(backend)
        let store = catalog.store
        let second = ServerKey(
            keyID: "k2", container: container, environment: .production,
            publicKeyPEM: "-----BEGIN PUBLIC KEY-----\nAAA\n-----END PUBLIC KEY-----",
            userRecordName: "_server", name: "backend", created: 5)
        let first = ServerKey(
            keyID: "k9", container: container, environment: .development, publicKeyPEM: "pem", userRecordName: "_s", name: "", created: 4)
        for key in [second, first] { try catalog.expectMoves("insert key") { try store.insertServerKey(key) } }
        #expect(try store.serverKey("k2") == second)
        #expect(try store.serverKey("k3") == nil)
        #expect(try store.serverKeys(in: container) == [first, second])
        #expect(try store.serverKeys(in: other) == [])
        #expect(try catalog.expectMoves("delete key") { try store.deleteServerKey("k2") })
        #expect(try store.deleteServerKey("k2") == false)
        #expect(try store.serverKeys(in: container) == [first])
    }

    // MARK: - Users

    @Test(arguments: CatalogBackend.allCases)
    func usersAreNamedAndFoundWithoutRegardToCase(_ backend: CatalogBackend) throws {
        let catalog = try OpenCatalog(backend)
        let store = catalog.store
        let alice = AppUser(
            userRecordName: "_alice", container: container, name: "Alice", emailAddress: "Alice@Example.com", firstName: "Alice",
            lastName: "Liddell", created: 1)
        let bob = AppUser(userRecordName: "_bob", container: container, name: "bob", created: 2, isDiscoverable: true)
        let carol = AppUser(userRecordName: "_carol", container: container, name: "Carol", created: 3)
        for user in [carol, bob, alice] {
            try catalog.expectMoves("insert user") { try store.insertUser(user, passwordHash: "h-\(user.name)") }
        }
        try catalog.expectStill("a refused user") {
            #expect(throws: CloudStoreError.exists("A user named 'ALICE' already exists in iCloud.com.example.Contract")) {
                try store.insertUser(AppUser(userRecordName: "_other", container: container, name: "ALICE", created: 4), passwordHash: "x")
            }
        }
        // The same name in another container is another user.
        try store.insertUser(AppUser(userRecordName: "_alice2", container: other, name: "alice", created: 5), passwordHash: "y")

        #expect(try store.user("_alice", in: container) == alice)
        #expect(try store.user("_alice", in: other) == nil)
        let found = try #require(try store.user(named: "aLICE", in: container))
        #expect(found.user == alice)
        #expect(found.passwordHash == "h-Alice")
        #expect(try store.user(named: "alice", in: other)?.user.userRecordName == "_alice2")
        #expect(try store.user(named: "dave", in: container) == nil)
        #expect(try store.user(email: "alice@EXAMPLE.COM", in: container) == alice)
        #expect(try store.user(email: "alice@example.com", in: other) == nil)
        #expect(try store.users(in: container).map(\.name) == ["Alice", "bob", "Carol"])

        #expect(try store.user("_bob", in: container)?.isDiscoverable == true)
        #expect(try store.user("_carol", in: container)?.isDiscoverable == false)
        #expect(try catalog.expectMoves("discoverable") { try store.setDiscoverable(true, of: "_carol", in: container) })
        #expect(try store.user("_carol", in: container)?.isDiscoverable == true)
        #expect(try store.setDiscoverable(false, of: "_bob", in: container))
        #expect(try store.user("_bob", in: container)?.isDiscoverable == false)
        #expect(try store.setDiscoverable(true, of: "_nobody", in: container) == false)
    }

    @Test(arguments: CatalogBackend.allCases)
    func namesFoldASCIICaseAloneWhateverTheDatabasesLocale(_ backend: CatalogBackend) throws {
        let catalog = try OpenCatalog(backend, unicodeLocale: true)
        let store = catalog.store
        try store.insertUser(AppUser(userRecordName: "_1", container: container, name: "Émile", created: 1), passwordHash: "h1")
        try store.insertUser(
            AppUser(userRecordName: "_2", container: container, name: "éMILE", emailAddress: "É@x", created: 2), passwordHash: "h2")
        #expect(try store.user(named: "émile", in: container)?.user.userRecordName == "_2")
        #expect(try store.user(named: "ÉMILE", in: container)?.user.userRecordName == "_1")
        #expect(try store.user(email: "é@X", in: container) == nil)
        #expect(try store.user(email: "É@X", in: container)?.userRecordName == "_2")
        try store.insertOperator(OperatorAccount(name: "Ödön", created: 1), passwordHash: "a")
        try store.insertOperator(OperatorAccount(name: "öDÖN", created: 2), passwordHash: "b")
        #expect(try store.operatorAccount(named: "ödön") == nil)
        #expect(try store.operatorAccount(named: "ÖDöN")?.account.name == "Ödön")
    }

    @Test(arguments: CatalogBackend.allCases)
    func aNewPasswordEndsTheUsersSessionsAtOnce(_ backend: CatalogBackend) throws {
        let catalog = try OpenCatalog(backend)
        let store = catalog.store
        try store.insertUser(AppUser(userRecordName: "_a", container: container, name: "a", created: 1), passwordHash: "old")
        try store.insertUser(AppUser(userRecordName: "_b", container: container, name: "b", created: 1), passwordHash: "b")
        for (id, user) in [("a1", "_a"), ("a2", "_a"), ("b1", "_b")] {
            try store.insertSession(
                WebSession(
                    id: id, container: container, environment: .development, userRecordName: user, idleLifetime: 1_000, created: 10,
                    expires: 100))
        }
        #expect(try store.openSessionCount(of: "_a", in: container, now: 50) == 2)
        try catalog.expectMoves("new password") { try store.setPasswordHash("new", of: "_a", in: container) }
        #expect(try store.user(named: "A", in: container)?.passwordHash == "new")
        #expect(try store.session("a1") == nil)
        #expect(try store.session("a2") == nil)
        #expect(try store.session("b1") != nil)
        #expect(try store.openSessionCount(of: "_a", in: container, now: 50) == 0)
        #expect(try store.sessionWasEndedByReset("a1") == false)
    }

    @Test(arguments: CatalogBackend.allCases)
    func deletingAUserEndsTheirSessionsAndPushTokens(_ backend: CatalogBackend) throws {
        let catalog = try OpenCatalog(backend)
        let store = catalog.store
        try store.insertUser(AppUser(userRecordName: "_a", container: container, name: "a", created: 1), passwordHash: "h")
        try store.insertUser(AppUser(userRecordName: "_b", container: container, name: "b", created: 1), passwordHash: "h")
        try store.insertSession(
            WebSession(
                id: "a1", container: container, environment: nil, userRecordName: "_a", idleLifetime: 1_000, created: 10, expires: 100))
        try store.insertSession(
            WebSession(
                id: "b1", container: container, environment: nil, userRecordName: "_b", idleLifetime: 1_000, created: 10, expires: 100))
        try store.insertPushToken(
            PushToken(
                token: "pa", container: container, environment: .development, apnsEnvironment: "development", userRecordName: "_a",
                created: 1))
        try store.insertPushToken(
            PushToken(
                token: "pb", container: container, environment: .development, apnsEnvironment: "development", userRecordName: "_b",
                created: 1))

        #expect(try catalog.expectMoves("delete user") { try store.deleteUser("_a", in: container) })
        #expect(try store.user("_a", in: container) == nil)
        #expect(try store.user(named: "a", in: container) == nil)
        #expect(try store.session("a1") == nil)
        #expect(try store.session("b1") != nil)
        // Their push tokens go, not merely let go: no unbound token keeps their queue's channel.
        #expect(try store.pushToken("pa") == nil)
        #expect(try store.pushToken("pb")?.userRecordName == "_b")
        #expect(try store.unboundPushTokenCount(in: container, .development) == 0)
        #expect(try store.deleteUser("_a", in: container) == false)
        // The name is free again.
        try store.insertUser(AppUser(userRecordName: "_a2", container: container, name: "A", created: 2), passwordHash: "h")
    }

    // MARK: - Web sessions

    @Test(arguments: CatalogBackend.allCases)
    func sessionsAreRevokedOneByOneByUserAndByReset(_ backend: CatalogBackend) throws {
        let catalog = try OpenCatalog(backend)
        let store = catalog.store
        func session(
            _ id: String, _ environment: Environment?, user: String = "_u", in container: ContainerIdentifier? = nil, expires: Int64 = 1_000
        )
            -> WebSession
        {
            WebSession(
                id: id, container: container ?? self.container, environment: environment, userRecordName: user, idleLifetime: 300,
                created: 100, expires: expires)
        }
        let development = session("dev", .development)
        try catalog.expectMoves("insert session") { try store.insertSession(development) }
        for extra in [
            session("none", nil), session("prod", .production), session("old", .development, expires: 200),
            session("otherUser", .development, user: "_v"), session("otherContainer", .development, in: other),
        ] {
            try store.insertSession(extra)
        }
        let read = try #require(try store.session("dev"))
        #expect(read.session == development)
        #expect(read.lastSeen == 100)
        #expect(try store.session("none")?.session.environment == nil)
        #expect(try store.session("nope") == nil)

        // Open at a time: not revoked, not past the expiry.
        #expect(try store.openSessionCount(of: "_u", in: container, now: 150) == 4)
        #expect(try store.openSessionCount(of: "_u", in: container, now: 200) == 3)
        #expect(try store.openSessionCount(in: container, .development, now: 150) == 4)
        #expect(try store.openSessionCount(in: container, .development, now: 500) == 3)
        #expect(try store.openSessionCount(in: container, .production, now: 150) == 2)

        try catalog.expectMoves("revoke one") { try store.revokeSession("prod") }
        #expect(try store.session("prod") == nil)
        #expect(try store.sessionWasEndedByReset("prod") == false)
        try catalog.expectMoves("revoke an absent one") { try store.revokeSession("absent") }

        // A reset ends the environment's sessions and those that kept none, and says so.
        #expect(try catalog.expectMoves("reset") { try store.revokeSessionsForReset(of: container, .development) } == 4)
        for id in ["dev", "none", "old", "otherUser"] {
            #expect(try store.session(id) == nil)
            #expect(try store.sessionWasEndedByReset(id))
        }
        #expect(try store.session("otherContainer") != nil)
        #expect(try store.sessionWasEndedByReset("otherContainer") == false)
        #expect(try store.sessionWasEndedByReset("absent") == false)
        #expect(try store.openSessionCount(in: container, .development, now: 150) == 0)
        #expect(try store.revokeSessionsForReset(of: container, .development) == 0)

        // Ending a user's sessions counts only those still open; a later revoke overrides the reset mark.
        try store.insertSession(session("fresh1", .production))
        try store.insertSession(session("fresh2", .production, expires: 120))
        #expect(try catalog.expectMoves("revoke a user's") { try store.revokeSessions(of: "_u", in: container) } == 2)
        #expect(try store.revokeSessions(of: "_u", in: container) == 0)
        try store.revokeSession("dev")
        #expect(try store.sessionWasEndedByReset("dev") == false)
    }

    // MARK: - Push tokens

    @Test(arguments: CatalogBackend.allCases)
    func pushTokensAreBoundAndUnboundOnesForgotten(_ backend: CatalogBackend) throws {
        let catalog = try OpenCatalog(backend)
        let store = catalog.store
        func token(_ name: String, _ user: String?, created: Int64, _ environment: Environment = .development) -> PushToken {
            PushToken(
                token: name, container: container, environment: environment, apnsEnvironment: "production", userRecordName: user,
                created: created)
        }
        let bound = token("t2", "_u", created: 20)
        try catalog.expectMoves("insert push token") { try store.insertPushToken(bound) }
        for extra in [
            token("t1", "_u", created: 30), token("t0", "_u", created: 20), token("t3", nil, created: 5), token("t4", nil, created: 50),
            token("t5", "_u", created: 1, .production), token("t6", nil, created: 1, .production),
        ] {
            try store.insertPushToken(extra)
        }
        #expect(try store.pushToken("t2") == bound)
        #expect(try store.pushToken("t3")?.userRecordName == nil)
        #expect(try store.pushToken("absent") == nil)
        #expect(try store.pushTokens(of: "_u", in: container, .development).map(\.token) == ["t0", "t2", "t1"])
        #expect(try store.pushTokens(of: "_u", in: container, .production).map(\.token) == ["t5"])
        #expect(try store.pushTokens(of: "_u", in: other, .development) == [])
        #expect(try store.boundPushTokens(in: container, .development).map(\.token) == ["t0", "t2", "t1"])
        #expect(try Set(store.pushTokens(among: ["t2", "absent", "t3"]).map(\.token)) == ["t2", "t3"])
        #expect(try store.pushTokens(among: []) == [])
        #expect(try store.unboundPushTokenCount(in: container, .development) == 2)

        try catalog.expectMoves("bind") { try store.bindPushToken("t3", to: "_v", session: "s-v", at: 60) }
        let boundNow = try #require(try store.pushToken("t3"))
        #expect(boundNow.userRecordName == "_v" && boundNow.session == "s-v" && boundNow.bound == 60 && boundNow.lastUsed == 60)
        #expect(try store.pushTokens(of: "_v", in: container, .development).map(\.token) == ["t3"])
        try catalog.expectStill("touch") { try store.touchPushToken("t3", at: 70) }
        #expect(try store.pushToken("t3")?.lastUsed == 70)
        #expect(try store.pushToken("t3")?.lastPolled == nil, "a touch is no poll")
        try catalog.expectStill("poll") { try store.notePushTokenPoll("t3", at: 80) }
        #expect(try store.pushToken("t3")?.lastPolled == 80)
        #expect(try store.pushToken("t3")?.lastUsed == 80, "a poll is a use")
        #expect(try catalog.expectMoves("delete") { try store.deletePushTokens(["t2", "absent"]) } == 1)
        #expect(try store.pushToken("t2") == nil)
        #expect(try store.unboundPushTokenCount(in: container, .development) == 1)

        // Only unbound tokens of the environment made before the time go.
        #expect(
            try catalog.expectMoves("forget") { try store.deleteUnboundPushTokens(in: container, .development, createdBefore: 50) } == 0)
        #expect(try store.pushToken("t4") != nil)
        #expect(try store.pushToken("t3") != nil)
        #expect(try store.pushToken("t6") != nil)
        #expect(try store.deleteUnboundPushTokens(in: container, .development, createdBefore: 51) == 1)
        #expect(try store.unboundPushTokenCount(in: container, .development) == 0)
    }

    @Test(arguments: CatalogBackend.allCases)
    func endingSessionsDeletesThePushTokensTheyHeld(_ backend: CatalogBackend) throws {
        let catalog = try OpenCatalog(backend)
        let store = catalog.store
        func token(_ name: String, _ user: String?, session: String?, _ environment: Environment = .development) -> PushToken {
            PushToken(
                token: name, container: container, environment: environment, apnsEnvironment: "production", userRecordName: user,
                created: 1,
                session: session)
        }
        for pushToken in [
            token("a1", "_a", session: "sa1"), token("a2", "_a", session: "sa2"), token("a3", "_a", session: nil, .production),
            token("b1", "_b", session: "sb1"), token("free", nil, session: nil),
        ] {
            try store.insertPushToken(pushToken)
        }
        // One session's sign-out ends the tokens made in it.
        try store.revokeSession("sa1")
        #expect(try store.pushToken("a1") == nil)
        #expect(try store.pushToken("a2") != nil)
        // Ending all of a user's sessions ends every token they hold, in every environment.
        _ = try store.revokeSessions(of: "_a", in: container)
        #expect(try store.pushToken("a2") == nil)
        #expect(try store.pushToken("a3") == nil)
        #expect(try store.pushToken("b1") != nil)
        #expect(try store.pushToken("free") != nil)
        // A new password, and a removal, do the same.
        try store.insertUser(AppUser(userRecordName: "_b", container: container, name: "b", created: 1), passwordHash: "h")
        try store.setPasswordHash("h2", of: "_b", in: container)
        #expect(try store.pushToken("b1") == nil)
        try store.insertPushToken(token("b2", "_b", session: "sb2"))
        #expect(try store.deleteUser("_b", in: container))
        #expect(try store.pushToken("b2") == nil)
        #expect(try store.pushToken("free") != nil)
    }

    // MARK: - Operators

    @Test(arguments: CatalogBackend.allCases)
    func operatorsAreNamedWithoutRegardToCase(_ backend: CatalogBackend) throws {
        let catalog = try OpenCatalog(backend)
        let store = catalog.store
        try catalog.expectMoves("insert operator") {
            try store.insertOperator(OperatorAccount(name: "Root", created: 1), passwordHash: "r")
        }
        try store.insertOperator(OperatorAccount(name: "admin", created: 2), passwordHash: "a")
        try store.insertOperator(OperatorAccount(name: "Zed", created: 3), passwordHash: "z")
        try catalog.expectStill("a refused operator") {
            #expect(throws: CloudStoreError.exists("An operator named 'ROOT' already exists")) {
                try store.insertOperator(OperatorAccount(name: "ROOT", created: 4), passwordHash: "x")
            }
        }
        #expect(
            try store.operators() == [
                OperatorAccount(name: "admin", created: 2), OperatorAccount(name: "Root", created: 1),
                OperatorAccount(name: "Zed", created: 3),
            ])
        let root = try #require(try store.operatorAccount(named: "rOOT"))
        #expect(root.account == OperatorAccount(name: "Root", created: 1))
        #expect(root.passwordHash == "r")
        #expect(try store.operatorAccount(named: "nobody") == nil)
    }

    @Test(arguments: CatalogBackend.allCases)
    func anOperatorsNewPasswordEndsTheirSessions(_ backend: CatalogBackend) throws {
        let catalog = try OpenCatalog(backend)
        let store = catalog.store
        try store.insertOperator(OperatorAccount(name: "Root", created: 1), passwordHash: "r")
        try store.insertOperator(OperatorAccount(name: "admin", created: 1), passwordHash: "a")
        for (id, name) in [("r1", "Root"), ("r2", "root"), ("a1", "admin")] {
            try store.insertOperatorSession(
                OperatorSession(id: id, operatorName: name, csrfToken: "c-\(id)", created: 1, expires: 100), lastSeen: 1)
        }
        #expect(try catalog.expectMoves("new password") { try store.setOperatorPasswordHash("r2", of: "ROOT") })
        #expect(try store.operatorAccount(named: "root")?.passwordHash == "r2")
        #expect(try store.operatorSession("r1") == nil)
        #expect(try store.operatorSession("r2") == nil)
        #expect(try store.operatorSession("a1") != nil)
        #expect(try store.setOperatorPasswordHash("x", of: "nobody") == false)
    }

    @Test(arguments: CatalogBackend.allCases)
    func deletingAnOperatorEndsTheirSessionsAndTokens(_ backend: CatalogBackend) throws {
        let catalog = try OpenCatalog(backend)
        let store = catalog.store
        try store.insertOperator(OperatorAccount(name: "Root", created: 1), passwordHash: "r")
        try store.insertOperator(OperatorAccount(name: "admin", created: 1), passwordHash: "a")
        try store.insertOperatorSession(
            OperatorSession(id: "r1", operatorName: "root", csrfToken: "c", created: 1, expires: 100), lastSeen: 1)
        try store.insertOperatorSession(
            OperatorSession(id: "a1", operatorName: "admin", csrfToken: "c", created: 1, expires: 100), lastSeen: 1)
        try store.insertManagementToken(
            ManagementToken(id: "mr", operatorName: "ROOT", name: "ci", created: 1, lastUsed: nil), secretHash: "h")
        try store.insertManagementToken(
            ManagementToken(id: "ma", operatorName: "admin", name: "ci", created: 1, lastUsed: nil), secretHash: "h")
        #expect(try catalog.expectMoves("delete operator") { try store.deleteOperator(named: "root") })
        #expect(try store.operatorAccount(named: "Root") == nil)
        #expect(try store.operators().map(\.name) == ["admin"])
        #expect(try store.operatorSession("r1") == nil)
        #expect(try store.operatorSession("a1") != nil)
        #expect(try store.managementToken("mr") == nil)
        #expect(try store.managementTokens().map(\.id) == ["ma"])
        #expect(try store.deleteOperator(named: "Root") == false)
    }

    @Test(arguments: CatalogBackend.allCases)
    func operatorSessionsRoundTripAndAreRevoked(_ backend: CatalogBackend) throws {
        let catalog = try OpenCatalog(backend)
        let store = catalog.store
        let session = OperatorSession(id: "o1", operatorName: "Root", csrfToken: "csrf", created: 10, expires: 1_000)
        try catalog.expectMoves("insert operator session") { try store.insertOperatorSession(session, lastSeen: 15) }
        let read = try #require(try store.operatorSession("o1"))
        #expect(read.session == session)
        #expect(read.lastSeen == 15)
        #expect(try store.operatorSession("o2") == nil)
        try catalog.expectMoves("revoke operator session") { try store.revokeOperatorSession("o1") }
        #expect(try store.operatorSession("o1") == nil)
    }

    @Test(arguments: CatalogBackend.allCases)
    func managementTokensAreListedByOperatorAndRevokedOnce(_ backend: CatalogBackend) throws {
        let catalog = try OpenCatalog(backend)
        let store = catalog.store
        let tokens = [
            ManagementToken(id: "t1", operatorName: "root", name: "late", created: 30, lastUsed: nil),
            ManagementToken(id: "t2", operatorName: "Admin", name: "ci", created: 20, lastUsed: nil),
            ManagementToken(id: "t3", operatorName: "ROOT", name: "early", created: 10, lastUsed: nil),
            ManagementToken(id: "t4", operatorName: "zed", name: "z", created: 5, lastUsed: nil),
        ]
        for token in tokens {
            try catalog.expectMoves("insert management token") { try store.insertManagementToken(token, secretHash: "hash-\(token.id)") }
        }
        let found = try #require(try store.managementToken("t2"))
        #expect(found.token == tokens[1])
        #expect(found.secretHash == "hash-t2")
        #expect(try store.managementToken("t9") == nil)
        #expect(try store.managementTokens().map(\.id) == ["t2", "t3", "t1", "t4"])
        #expect(try catalog.expectMoves("revoke management token") { try store.revokeManagementToken("t3") })
        #expect(try store.revokeManagementToken("t3") == false)
        #expect(try store.revokeManagementToken("t9") == false)
        #expect(try store.managementToken("t3") == nil)
        #expect(try store.managementTokens().map(\.id) == ["t2", "t1", "t4"])
        try store.touchManagementToken("t1", at: 99)
        #expect(try store.managementTokens().first { $0.id == "t1" }?.lastUsed == 99)
    }

    // MARK: - Lifecycle

    @Test(arguments: CatalogBackend.allCases)
    func deploymentsAreListedLatestFirst(_ backend: CatalogBackend) throws {
        let catalog = try OpenCatalog(backend)
        let store = catalog.store
        let first = SchemaDeployment(
            container: container, deployed: 10, deployedBy: "root", changes: ["+ Note", "+ Note.title"], schema: "DEFINE SCHEMA\n")
        let second = SchemaDeployment(container: container, deployed: 20, deployedBy: "admin", changes: [], schema: "s2")
        let third = SchemaDeployment(container: container, deployed: 20, deployedBy: "root", changes: ["+ Tag"], schema: "s3")
        let elsewhere = SchemaDeployment(container: other, deployed: 30, deployedBy: "root", changes: ["x"], schema: "o")
        for deployment in [first, second, third, elsewhere] {
            try catalog.expectMoves("insert deployment") { try store.insertDeployment(deployment) }
        }
        #expect(try store.deployments(in: container, limit: 10) == [third, second, first])
        #expect(try store.deployments(in: container, limit: 2) == [third, second])
        #expect(try store.deployments(in: other, limit: 10) == [elsewhere])
        #expect(try store.deployments(in: try ContainerIdentifier("iCloud.none"), limit: 10) == [])
    }

    @Test(arguments: CatalogBackend.allCases)
    func auditEntriesAreFilteredAndForgotten(_ backend: CatalogBackend) throws {
        let catalog = try OpenCatalog(backend)
        let store = catalog.store
        let entries = [
            AuditEntry(
                time: 100, actor: "console", operatorName: "Root", container: "iCloud.a", environment: "development",
                action: "schema.deploy", target: "t1"),
            AuditEntry(
                time: 200, actor: "cli", operatorName: "admin", container: nil, environment: nil, action: "operator.create", target: "t2"),
            AuditEntry(
                time: 300, actor: "console", operatorName: "root", container: "iCloud.b", environment: "production", action: "schema.reset",
                target: "t3"),
            AuditEntry(
                time: 400, actor: "api", operatorName: "ROOT", container: "iCloud.a", environment: nil, action: "schemas", target: "t4"),
        ]
        for entry in entries { try catalog.expectMoves("audit") { try store.insertAuditEntry(entry, forgetBefore: 0) } }
        let all = try store.auditEntries(AuditFilter())
        #expect(all.map(\.target) == ["t4", "t3", "t2", "t1"])
        #expect(all.map(\.id) == all.map(\.id).sorted(by: >))
        #expect(Set(all.map(\.id)).count == 4)
        var expected = entries[2]
        expected.id = all[1].id
        #expect(all[1] == expected)
        #expect(all[2].container == nil && all[2].environment == nil)

        #expect(try store.auditEntries(AuditFilter(operatorName: "rOoT")).map(\.target) == ["t4", "t3", "t1"])
        #expect(try store.auditEntries(AuditFilter(container: "iCloud.a")).map(\.target) == ["t4", "t1"])
        #expect(try store.auditEntries(AuditFilter(action: "schema.")).map(\.target) == ["t3", "t1"])
        #expect(try store.auditEntries(AuditFilter(action: "schema")).map(\.target) == ["t4", "t3", "t1"])
        #expect(try store.auditEntries(AuditFilter(action: "Schema")).map(\.target) == [])
        #expect(try store.auditEntries(AuditFilter(operatorName: "root", container: "iCloud.a", action: "schema.")).map(\.target) == ["t1"])
        #expect(try store.auditEntries(AuditFilter(before: all[1].id)).map(\.target) == ["t2", "t1"])
        #expect(try store.auditEntries(AuditFilter(limit: 2)).map(\.target) == ["t4", "t3"])
        #expect(try store.auditEntries(AuditFilter(limit: 0)).map(\.target) == ["t4"])

        // Adding an entry forgets those older than the retention.
        try store.insertAuditEntry(
            AuditEntry(time: 500, actor: "cli", operatorName: "root", container: nil, environment: nil, action: "x", target: "t5"),
            forgetBefore: 300)
        #expect(try store.auditEntries(AuditFilter()).map(\.target) == ["t5", "t4", "t3"])
    }

    @Test(arguments: CatalogBackend.allCases)
    func limitsAreSetAndReplaced(_ backend: CatalogBackend) throws {
        let catalog = try OpenCatalog(backend)
        let store = catalog.store
        #expect(try store.limits(of: container, .development) == nil)
        let limits = EnvironmentLimits(requestsPerSecond: 12.5, burst: 40, storageBytes: 1 << 40, transferBytesPerMonth: 7)
        try catalog.expectMoves("set limits") { try store.setLimits(limits, of: container, .development) }
        #expect(try store.limits(of: container, .development) == limits)
        #expect(try store.limits(of: container, .production) == nil)
        #expect(try store.limits(of: other, .development) == nil)
        try catalog.expectMoves("replace limits") { try store.setLimits(.cloudKit, of: container, .development) }
        #expect(try store.limits(of: container, .development) == .cloudKit)
        #expect(try store.limits(of: container, .development)?.storageBytes == nil)
    }
}

/// What only the PostgreSQL catalog must do: be shared by several processes.
@Suite(.enabled(if: TestBackend.isDefaultRun, "Runs against PostgreSQL itself, once, in the default run")) struct PostgresCatalogStoreTests
{
    let database: TestDatabase
    init() throws { database = try TestPostgres.makeDatabase() }

    static let container = try! ContainerIdentifier("iCloud.com.example.Shared")

    @Test func aTokenRevokedThroughOneProcessIsRefusedByTheOtherWithinASecond() throws {
        // Two stores with pools of their own stand for two processes.
        let first = try PostgresCatalogStore(url: database.url)
        let second = try PostgresCatalogStore(url: database.url)
        let token = APIToken(
            token: "shared", container: Self.container, environment: .development, name: "web", allowedOrigins: [], signInCallback: nil,
            created: 1)
        try first.insertAPIToken(token)
        #expect(try second.apiToken("shared") == token)
        let seen = try second.changeCounter()
        let before = try first.changeCounter()

        #expect(try first.deleteAPIToken("shared"))
        #expect(try first.changeCounter() != before)
        #expect(try second.apiToken("shared") == nil)
        // The other process's cached counter moves once its second is up; polled for longer,
        // so a slow machine cannot fail the test, and it must move.
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(2)
        var counter = try second.changeCounter()
        while counter == seen && clock.now < deadline {
            Thread.sleep(forTimeInterval: 0.02)
            counter = try second.changeCounter()
        }
        #expect(counter != seen)
        #expect(counter == (try first.changeCounter()))
    }

    @Test func aNotificationCanDropTheCachedCounterAtOnce() throws {
        let store = try PostgresCatalogStore(url: database.url)
        let counter = try store.changeCounter()
        try RawPostgres(url: database.url).execute("UPDATE catalog.settings SET change_counter = change_counter + 10")
        store.invalidateCachedCounter()
        #expect(try store.changeCounter() == counter + 10)
    }

    @Test func storesOpenedTogetherMigrateOnce() throws {
        let url = database.url
        let secrets = Mutex<[Result<[UInt8], any Error>]>([])
        DispatchQueue.concurrentPerform(iterations: 3) { _ in
            let secret = Result { try PostgresCatalogStore(url: url).secret() }
            secrets.withLock { $0.append(secret) }
        }
        let opened = try secrets.withLock { results in try results.map { try $0.get() } }
        #expect(opened.count == 3)
        #expect(Set(opened).count == 1)
        let raw = try RawPostgres(url: url)
        #expect(try raw.execute("SELECT count(*) FROM catalog.migrations") == [["\(PostgresCatalogMigrations.migrator.migrations.count)"]])
        #expect(try raw.execute("SELECT count(*) FROM catalog.settings") == [["1"]])
        // Every table is in the catalog's schema, none in public.
        #expect(try raw.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == [["0"]])
        // 15, and the 4 of seeds and personal fields.
        #expect(try raw.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'catalog'") == [["19"]])
    }

    @Test func theClusterIdentityIsSetOnceAndBumpsTheIncarnationWhenAsked() throws {
        let first = try PostgresCatalogStore(url: database.url)
        let second = try PostgresCatalogStore(url: database.url)
        #expect(try first.clusterIdentity() == "")
        let incarnation = try first.incarnation()
        #expect(incarnation.count == 16)
        #expect(incarnation.allSatisfy { $0.isHexDigit })

        // Two processes that find the cluster changed: only one of them bumps the incarnation.
        let changed = Mutex<[Bool]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let store = index == 0 ? first : second
            let result = (try? store.setClusterIdentity("7341:1", bumpIncarnation: true)) ?? false
            changed.withLock { $0.append(result) }
        }
        #expect(changed.withLock { $0.filter { $0 }.count } == 1)
        let bumped = try second.incarnation()
        #expect(bumped != incarnation)
        #expect(try first.clusterIdentity() == "7341:1")

        #expect(try first.setClusterIdentity("7341:1", bumpIncarnation: true) == false)
        #expect(try first.incarnation() == bumped)
        // A planned move records the new identity and keeps the incarnation.
        #expect(try first.setClusterIdentity("9000:1", bumpIncarnation: false))
        #expect(try second.clusterIdentity() == "9000:1")
        #expect(try second.incarnation() == bumped)
    }

    @Test func failuresLeaveAsCloudStoreErrorsWithoutTheURL() throws {
        do {
            _ = try PostgresCatalogStore(url: "postgres://cumulus:Pa55-w0rd-here@127.0.0.1:1/nothing")
            Issue.record("opened a catalog on a closed port")
        } catch let error as CloudStoreError {
            #expect(!error.description.contains("Pa55-w0rd-here"))
            #expect(!error.description.contains("127.0.0.1:1"))
        }
        let store = try PostgresCatalogStore(url: database.url)
        try RawPostgres(url: database.url).execute("DROP TABLE catalog.api_tokens")
        #expect(throws: CloudStoreError.self) { try store.apiToken("x") }
    }
}
