import TestSupport
import Testing

@testable import CloudStore

/// Console operators: accounts apart from app users, sessions that end, management tokens that
/// are shown once, stored hashed and revoked at once.
@Suite struct OperatorTests {
    @Test(.enabled(if: TestBackend.isSQLite, "Reads the SQLite catalog file")) func operatorsSignInToSessionsThatEndWhenIdleOldOrSignedOut()
        throws
    {
        let store = try TemporaryStore()
        try store.store.addOperator("root", password: "a long operator password")
        #expect(try store.store.operators().map(\.name) == ["root"])
        #expect(throws: CloudStoreError.exists("An operator named 'ROOT' already exists")) {
            try store.store.addOperator("ROOT", password: "another long password")
        }
        #expect(throws: CloudStoreError.badRequest("An operator password needs at least 10 characters")) {
            try store.store.addOperator("short", password: "123456789")
        }
        #expect(throws: CloudStoreError.authenticationFailed("Incorrect name or password")) {
            try store.store.signInOperator("root", password: "wrong password", clientAddress: nil)
        }
        let (session, secret) = try store.store.signInOperator("Root", password: "a long operator password", clientAddress: nil)
        #expect(session.operatorName == "root")
        #expect(session.id != secret)
        #expect(session.csrfToken.count == 64)
        #expect(try store.store.operatorSession(secret: secret) == session)
        // A second sign-in is a different session: a fresh id at every login.
        let (second, secondSecret) = try store.store.signInOperator("root", password: "a long operator password", clientAddress: nil)
        #expect(second.id != session.id && secondSecret != secret)

        // The catalog holds only a hash of the secret.
        let raw = try RawSQLite(path: store.directory + "/cumulus.sqlite")
        #expect(try raw.rows("SELECT id FROM operator_sessions").allSatisfy { !$0.contains(secret) })

        // An hour without use ends it; use keeps it alive up to twelve hours.
        for _ in 0..<11 {
            store.clock.advance(by: 59 * 60 * 1000)
            _ = try store.store.operatorSession(secret: secondSecret)
        }
        store.clock.advance(by: 61 * 60 * 1000)
        #expect(throws: CloudStoreError.self) { try store.store.operatorSession(secret: secret) }
        #expect(throws: CloudStoreError.self) { try store.store.operatorSession(secret: secondSecret) }

        let (_, third) = try store.store.signInOperator("root", password: "a long operator password", clientAddress: nil)
        try store.store.signOutOperator(secret: third)
        #expect(throws: CloudStoreError.authenticationRequired("Sign in to the console")) { try store.store.operatorSession(secret: third) }

        // A new password ends open sessions.
        let (_, fourth) = try store.store.signInOperator("root", password: "a long operator password", clientAddress: nil)
        try store.store.setOperatorPassword("a newer operator password", of: "root")
        #expect(throws: CloudStoreError.self) { try store.store.operatorSession(secret: fourth) }
    }

    @Test(.enabled(if: TestBackend.isSQLite, "Reads the SQLite catalog file"))
    func managementTokensAreShownOnceStoredHashedAndRevokedAtOnce() throws {
        let store = try TemporaryStore()
        try store.store.addOperator("ops", password: "a long operator password")
        let (token, text) = try store.store.createManagementToken(for: "ops", name: "deploy script")
        #expect(text.hasPrefix("cumulus_mt_\(token.id)_"))
        #expect(try store.store.managementToken(text: text) == token)
        #expect(try store.store.managementTokens().map(\.id) == [token.id])
        let raw = try RawSQLite(path: store.directory + "/cumulus.sqlite")
        #expect(try raw.rows("SELECT hash FROM management_tokens").allSatisfy { !text.contains($0[0]) })

        var forged = Array(text)
        forged[forged.count - 1] = forged.last == "a" ? "b" : "a"
        #expect(throws: CloudStoreError.authenticationFailed("The management token is not valid")) {
            try store.store.managementToken(text: String(forged))
        }
        // Another process revoking it is seen at once.
        let other = try store.anotherProcess()
        try other.revokeManagementToken(token.id)
        #expect(throws: CloudStoreError.authenticationFailed("The management token is not valid")) {
            try store.store.managementToken(text: text)
        }

        // Removing an operator revokes their tokens.
        let (_, kept) = try store.store.createManagementToken(for: "ops", name: "another")
        try store.store.removeOperator("ops")
        #expect(throws: CloudStoreError.self) { try store.store.managementToken(text: kept) }
        #expect(throws: CloudStoreError.notFound("No operator named 'ops'")) {
            try store.store.createManagementToken(for: "ops", name: "x")
        }
    }

    @Test func operatorGuessingIsThrottled() throws {
        let store = try TemporaryStore()
        try store.store.addOperator("root", password: "a long operator password")
        for _ in 0..<5 {
            _ = try? store.store.signInOperator("root", password: "guess", clientAddress: "203.0.113.1")
        }
        #expect(throws: CloudStoreError.self) {
            try store.store.signInOperator("root", password: "a long operator password", clientAddress: "203.0.113.1")
        }
    }

    @Test func aManagementTokenCannotMintManagementTokens() throws {
        let store = try TemporaryStore()
        try store.store.addOperator("root", password: "a long operator password")
        try store.store.addOperator("alice", password: "a long operator password")
        let held = try store.store.createManagementToken(for: "root", name: "script")
        #expect(
            throws: CloudStoreError.accessDenied(
                "A management token cannot create management tokens: sign in to the console, or run `cumulus operators token` on the server"
            )
        ) { try store.store.createManagementToken(for: "root", name: "more", by: .token(operatorName: "root", tokenID: held.token.id)) }
        #expect(throws: CloudStoreError.accessDenied("An operator creates management tokens for themselves only")) {
            try store.store.createManagementToken(for: "root", name: "theirs", by: .session(operatorName: "alice", sessionID: "s1"))
        }
        #expect(try store.store.managementTokens().map(\.name) == ["script"])
        // A console session makes its own; the command line, holding the data directory, anyone's.
        #expect(
            try store.store.createManagementToken(for: "alice", name: "mine", by: .session(operatorName: "alice", sessionID: "s1")).token
                .operatorName == "alice")
        #expect(try store.store.createManagementToken(for: "root", name: "deploy", by: .local).token.operatorName == "root")
    }
}
