import Foundation
import TestSupport
import Testing

@testable import CloudStore

/// A download URL made for an operator lasts as long as the console session or management
/// token it was made under; one made for an app user names that user's session.
@Suite struct AssetDownloadCredentialTests {
    /// The ticket of the download URL record `name`'s `file` field has for `caller` holding `credential`.
    static func ticket(_ name: String, in temporary: TemporaryStore, as caller: Caller = .operator(), credential: AssetCredential) throws
        -> String
    {
        var database = try temporary.database(.development, .public, as: caller)
        database.assetBaseURL = ""
        database.assetCredential = credential
        let result = try #require(try database.lookup([RecordLookup(name)]).first)
        guard case .record(let record) = result else { throw TestFailure("no record \(name): \(result)") }
        let url = try #require(record.fields["file"]?.assets.first?.downloadURL)
        return String(try #require(url.split(separator: "/").dropFirst(3).first))
    }

    static func saved(in temporary: TemporaryStore) throws {
        try temporary.importSchema(
            """
            DEFINE SCHEMA
                RECORD TYPE Note ( file ASSET, GRANT WRITE TO "_creator", GRANT CREATE TO "_icloud", GRANT READ TO "_world" );
            """)
        _ = try AssetUploadTests.save(Array("operator's view".utf8), as: "n1", in: temporary)
    }

    @Test func anOperatorsURLEndsWithTheirTokenOrSession() throws {
        let temporary = try TemporaryStore()
        try Self.saved(in: temporary)
        let store = temporary.store
        try store.addOperator("alice", password: "a long passphrase for alice")
        let (token, _) = try store.createManagementToken(for: "alice", name: "script")
        let byToken = try Self.ticket(
            "n1", in: temporary, credential: OperatorIdentity.token(operatorName: "alice", tokenID: token.id).assetCredential)
        #expect(try store.assetContent(ticket: byToken).bytes == Array("operator's view".utf8))
        try store.revokeManagementToken(token.id)
        #expect(throws: CloudStoreError.notFound("The download URL ended with the session it was made for; fetch the record again")) {
            try store.assetContent(ticket: byToken)
        }

        let (session, secret) = try store.signInOperator("alice", password: "a long passphrase for alice", clientAddress: nil)
        let identity = OperatorIdentity.session(operatorName: "alice", sessionID: session.id)
        let bySession = try Self.ticket("n1", in: temporary, credential: identity.assetCredential)
        #expect(try store.assetContent(ticket: bySession).bytes.isEmpty == false)
        try store.signOutOperator(secret: secret)
        #expect(throws: CloudStoreError.self, "signed out") { try store.assetContent(ticket: bySession) }

        // Removing the operator ends both at once.
        let (again, _) = try store.signInOperator("alice", password: "a long passphrase for alice", clientAddress: nil)
        let (second, _) = try store.createManagementToken(for: "alice", name: "another")
        let tickets = [
            try Self.ticket("n1", in: temporary, credential: .operatorSession(again.id)),
            try Self.ticket("n1", in: temporary, credential: .managementToken(second.id)),
        ]
        for ticket in tickets { #expect(try store.assetContent(ticket: ticket).bytes.isEmpty == false) }
        try store.removeOperator("alice")
        for ticket in tickets {
            #expect(throws: CloudStoreError.self, "operator removed") { try store.assetContent(ticket: ticket) }
        }
    }

    @Test func aUsersURLNeedsTheirOwnLiveSession() throws {
        let temporary = try TemporaryStore()
        try Self.saved(in: temporary)
        let store = temporary.store
        let alice = try store.addUser(temporary.container, name: "alice", password: "correct horse battery")
        let bob = try store.addUser(temporary.container, name: "bob", password: "correct horse battery")
        let token = try store.signIn(temporary.container, .development, name: "alice", password: "correct horse battery").webAuthToken
        let session = try store.session(forWebAuthToken: token, in: temporary.container, .development)
        let own = try Self.ticket("n1", in: temporary, as: .user(alice.userRecordName), credential: .webSession(session.id))
        #expect(try store.assetContent(ticket: own).bytes.isEmpty == false)
        let borrowed = try Self.ticket("n1", in: temporary, as: .user(bob.userRecordName), credential: .webSession(session.id))
        #expect(throws: CloudStoreError.self, "another user's session") { try store.assetContent(ticket: borrowed) }
        let none = try Self.ticket("n1", in: temporary, as: .user(alice.userRecordName), credential: .none)
        #expect(throws: CloudStoreError.self, "a user's URL without a session") { try store.assetContent(ticket: none) }
        try store.signOut(webAuthToken: token, in: temporary.container, .development)
        #expect(throws: CloudStoreError.self, "signed out") { try store.assetContent(ticket: own) }
    }

    @Test func aUsedUploadTicketIsForgottenOnceExpired() throws {
        let temporary = try TemporaryStore()
        try Self.saved(in: temporary)
        let storage = try temporary.store.environment(temporary.container, .development)
        #expect(try storage.write { try $0.insertUsedUploadTicket("t1", expires: 10) } == true)
        #expect(try storage.write { try $0.insertUsedUploadTicket("t1", expires: 10) } == false, "taken once")
        try temporary.store.collectUnreferencedAssets()
        #expect(try storage.write { try $0.insertUsedUploadTicket("t1", expires: 10) } == true, "forgotten after it expired")
    }
}
