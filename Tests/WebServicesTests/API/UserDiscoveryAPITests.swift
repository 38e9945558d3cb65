import CloudStore
import Foundation
import TestSupport
import Testing

@testable import WebServices

/// `users/discover` and `users/lookup/*`: only users who chose to be discoverable are found,
/// only by signed-in callers, in the shapes CloudKit gives.
@Suite struct UserDiscoveryAPITests {
    /// A server whose user alice signs in; bob and carol are discoverable, dave is not.
    private static func server() throws -> (APITestServer, String, [String: AppUser]) {
        let server = try APITestServer()
        let token = try server.signIn()
        var users: [String: AppUser] = [:]
        for (name, email, discoverable) in [
            ("bob", "bob@example.com", true), ("carol", "carol@example.com", true), ("dave", "dave@example.com", false),
        ] {
            users[name] = try server.store.addUser(
                server.container, name: name, password: "a long passphrase", emailAddress: email, firstName: name.capitalized,
                lastName: "Example", isDiscoverable: discoverable)
        }
        return (server, token, users)
    }

    @Test func discoverFindsOnlyDiscoverableUsersInTheOrderAsked() throws {
        let (server, token, users) = try Self.server()
        let bob = try #require(users["bob"]), dave = try #require(users["dave"])
        let body =
            #"{"lookupInfos":[{"emailAddress":"CAROL@example.com"},{"emailAddress":"dave@example.com"},{"userRecordName":"\#(bob.userRecordName)"},{"phoneNumber":"+15555550100"},{"emailAddress":"nobody@example.com"}]}"#
        let found = try server.post("public", "users/discover", body, webAuthToken: token)
        #expect(found.status == 200, "\(found.text)")
        let identities = try #require(try found.json()["users"]?.arrayValue)
        #expect(identities.map { $0["lookupInfo"]?["emailAddress"]?.stringValue } == ["carol@example.com", "bob@example.com"])
        #expect(
            identities[1] == [
                "userRecordName": .string(bob.userRecordName),
                "lookupInfo": ["userRecordName": .string(bob.userRecordName), "emailAddress": "bob@example.com"],
                "nameComponents": ["givenName": "Bob", "familyName": "Example"],
            ])
        #expect(!found.text.contains(dave.userRecordName), "an undiscoverable user is never told")

        for method in ["GET", "POST"] {
            let all = try server.send(method, server.authorized(server.path("public", "users/discover"), webAuthToken: token))
            #expect(
                try all.json()["users"]?.arrayValue?.compactMap { $0["userRecordName"]?.stringValue }.sorted()
                    == [try #require(users["carol"]).userRecordName, bob.userRecordName].sorted(), "\(method)")
        }
        #expect(try server.post("public", "users/discover", #"{"lookupInfos":[{}]}"#, webAuthToken: token).status == 400)
    }

    @Test func theOlderLookupsAnswerUserDictionaries() throws {
        let (server, token, users) = try Self.server()
        let bob = try #require(users["bob"])
        let byEmail = try server.post(
            "public", "users/lookup/email", #"{"users":[{"emailAddress":"bob@example.com"},{"emailAddress":"dave@example.com"}]}"#,
            webAuthToken: token)
        #expect(
            try byEmail.json() == [
                "users": [
                    [
                        "userRecordName": .string(bob.userRecordName), "firstName": "Bob", "lastName": "Example",
                        "emailAddress": "bob@example.com",
                    ]
                ]
            ])
        let byID = try server.post(
            "public", "users/lookup/id",
            #"{"users":[{"userRecordName":"\#(bob.userRecordName)"},{"userRecordName":"\#(try #require(users["dave"]).userRecordName)"}]}"#,
            webAuthToken: token)
        #expect(try byID.json() == ["users": [["userRecordName": .string(bob.userRecordName), "firstName": "Bob", "lastName": "Example"]]])
        for method in ["GET", "POST"] {
            let contacts = try server.send(method, server.authorized(server.path("public", "users/lookup/contacts"), webAuthToken: token))
            let names = try contacts.json()["users"]?.arrayValue?.compactMap { $0["firstName"]?.stringValue }
            #expect(names?.sorted() == ["Bob", "Carol"], "\(method)")
            #expect(!contacts.text.contains("emailAddress"))
        }
        #expect(try server.post("public", "users/lookup/email", #"{"users":[{}]}"#, webAuthToken: token).status == 400)
    }

    @Test func discoveryNeedsASignedInUser() throws {
        let (server, _, _) = try Self.server()
        for operation in ["users/discover", "users/lookup/email", "users/lookup/id", "users/lookup/contacts"] {
            let refused = try server.post("public", operation, #"{"users":[{"emailAddress":"bob@example.com","userRecordName":"_x"}]}"#)
            #expect(refused.status == 421, "\(operation)")
            #expect(!refused.text.contains("bob"), "\(operation)")
        }
    }

    @Test func theStoreKeepsTheChoice() throws {
        let (server, _, users) = try Self.server()
        let dave = try #require(users["dave"])
        try server.store.setDiscoverable(true, of: dave.userRecordName, in: server.container)
        #expect(
            try server.store.discoverUsers([.emailAddress("dave@example.com")], in: server.container, as: .user("_someone")).map(\.name)
                == ["dave"])
        try server.store.setDiscoverable(false, of: dave.userRecordName, in: server.container)
        #expect(try server.store.discoverUsers([.emailAddress("dave@example.com")], in: server.container, as: .user("_someone")).isEmpty)
        #expect(throws: CloudStoreError.self) { try server.store.setDiscoverable(true, of: "_nobody", in: server.container) }
        #expect(throws: CloudStoreError.self) { try server.store.discoverableUsers(in: server.container, as: .world) }
    }
}
