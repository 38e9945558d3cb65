import CloudStore
import Foundation
import HTTPServer
import TestSupport
import Testing

@testable import WebServices

@Suite struct ZonesAPITests {
    @Test func listLookupAndModifyZones() throws {
        let server = try APITestServer()
        let token = try server.signIn()
        let user = try #require(try server.store.users(server.container).first?.userRecordName)

        let created = try server.post(
            "private", "zones/modify",
            #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}},{"operationType":"create","zone":{"zoneID":{"zoneName":"Photos","ownerRecordName":"ignored","zoneType":"REGULAR_CUSTOM_ZONE"}}}]}"#,
            webAuthToken: token)
        #expect(created.status == 200, "\(created.text)")
        let zones = try #require(try created.json()["zones"]?.arrayValue)
        #expect(zones[0]["zoneID"] == ["zoneName": "Notes", "ownerRecordName": .string(user), "zoneType": "REGULAR_CUSTOM_ZONE"])
        #expect(zones[0]["atomic"] == true)
        #expect(zones[0]["syncToken"]?.stringValue?.isEmpty == false)

        for method in ["GET", "POST"] {
            let listed = try server.send(method, server.authorized(server.path("private", "zones/list"), webAuthToken: token))
            #expect(listed.status == 200)
            #expect(
                try listed.json()["zones"]?.arrayValue?.compactMap { $0["zoneID"]?["zoneName"]?.stringValue } == [
                    "_defaultZone", "Notes", "Photos",
                ])
        }
        let again = try server.post(
            "private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#,
            webAuthToken: token)
        #expect(try again.json()["zones"]?[0]?["serverErrorCode"] == "EXISTS")

        let lookup = try server.post(
            "private", "zones/lookup", #"{"zones":[{"zoneName":"Notes"},{"zoneName":"Nope"}]}"#, webAuthToken: token
        ).json()
        #expect(lookup["zones"]?[0]?["zoneID"]?["zoneName"] == "Notes")
        #expect(lookup["zones"]?[1]?["serverErrorCode"] == "ZONE_NOT_FOUND")

        let deleted = try server.post(
            "private", "zones/modify", #"{"operations":[{"operationType":"delete","zone":{"zoneID":{"zoneName":"Photos"}}}]}"#,
            webAuthToken: token
        ).json()
        #expect(deleted["zones"]?[0]?["deleted"] == true)

        let publicZones = try server.post(
            "public", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Z"}}}]}"#,
            webAuthToken: token)
        #expect(publicZones.status == 400)
        let world = try server.send("GET", server.authorized(server.path("private", "zones/list")))
        #expect(world.status == 421)
        #expect(try world.json()["redirectURL"]?.stringValue?.contains("/signin?ckAPIToken=") == true)
    }
}

@Suite struct UsersAPITests {
    @Test func callerAndCurrentDescribeTheSignedInUser() throws {
        let server = try APITestServer()
        let token = try server.signIn()
        let user = try #require(try server.store.users(server.container).first)
        let caller = try server.send("GET", server.authorized(server.path("public", "users/caller"), webAuthToken: token))
        #expect(caller.status == 200)
        let body = try caller.json()
        #expect(body["userRecordName"]?.stringValue == user.userRecordName)
        #expect(body["users"]?[0]?["userRecordName"]?.stringValue == user.userRecordName)
        #expect(body["lookupInfo"]?["emailAddress"] == "alice@example.com")
        #expect(body["nameComponents"] == ["givenName": "Alice", "familyName": "Liddell"])

        let current = try server.send("POST", server.authorized(server.path("public", "users/current"), webAuthToken: token))
        #expect(try current.json() == ["userRecordName": .string(user.userRecordName), "firstName": "Alice", "lastName": "Liddell"])
    }

    @Test func withoutASignedInUserTheAnswerIs421WithWhereToSignIn() throws {
        let server = try APITestServer()
        let response = try server.send(
            "GET", server.authorized(server.path("public", "users/current")), headers: ["Origin": "https://app.example.com"])
        #expect(response.status == 421)
        let body = try response.json()
        #expect(body["serverErrorCode"] == "AUTHENTICATION_REQUIRED")
        #expect(
            body["redirectURL"]?.stringValue
                == "http://127.0.0.1:\(server.port)/signin?ckAPIToken=\(server.apiToken.token)&origin=https://app.example.com")
    }
}

@Suite struct TokensAPITests {
    @Test(arguments: [
        "/database/1/iCloud.com.example.Notes/development/tokens/create",
        "/database/1/iCloud.com.example.Notes/development/public/tokens/create",
        "/device/1/iCloud.com.example.Notes/development/tokens/create",
    ])
    func tokensCreateOnEveryPathForm(_ path: String) throws {
        let server = try APITestServer()
        let response = try server.send("POST", server.authorized(path), body: #"{"apnsEnvironment":"development"}"#)
        #expect(response.status == 200, "\(response.text)")
        let body = try response.json()
        #expect(body["apnsEnvironment"] == "development")
        let token = try #require(body["apnsToken"]?.stringValue)
        #expect(try server.store.pushToken(token) != nil)
        let url = try #require(body["webcourierURL"]?.stringValue)
        #expect(url.hasPrefix("http://127.0.0.1:\(server.port)/webcourier/1/aps?tok="))
        #expect(url.hasSuffix("&ttl=43200"))

        let registered = try server.send(
            "POST", server.authorized(path.replacingOccurrences(of: "create", with: "register")),
            body: #"{"apnsEnvironment":"development","apnsToken":"\#(token)"}"#)
        #expect(registered.status == 200)
        // Answered like tokens/create: CloudKit JS 2 replaces what it holds with this.
        #expect(try registered.json()["apnsToken"]?.stringValue == token)
        #expect(try registered.json()["webcourierURL"]?.stringValue == url)
        let bad = try server.send("POST", server.authorized(path), body: #"{"apnsEnvironment":"staging"}"#)
        #expect(bad.status == 400)
    }

    /// Security review N1, as the review ran it: a push token and a private subscription made
    /// with a stolen web auth token, then the victim's remedy. The courier URL answers an empty
    /// 404 and hands out nothing of the victim's next private save.
    @Test(arguments: ["sign out everywhere", "new password", "sign out"])
    func aCourierURLMadeInAStolenSessionEndsWithTheSession(_ remedy: String) throws {
        let server = try APITestServer(courierTimeout: .milliseconds(200))
        try server.defineNote(#"title STRING QUERYABLE"#)
        let stolen = try server.signIn()
        let created = try server.post("public", "tokens/create", "{}", webAuthToken: stolen)
        #expect(created.status == 200, "\(created.text)")
        let url = try #require(try created.json()["webcourierURL"]?.stringValue)
        let target = String(url.dropFirst("http://127.0.0.1:\(server.port)".count))
        let subscribed = try server.post(
            "private", "subscriptions/modify",
            """
            {"operations":[{"operationType":"create","subscription":{"subscriptionID":"spy","subscriptionType":"query",
              "query":{"recordType":"Note"},"firesOn":["create","update"],
              "notificationInfo":{"additionalFields":["title"],"shouldSendContentAvailable":true}}}]}
            """, webAuthToken: stolen)
        #expect(
            subscribed.status == 200 && subscribed.text.contains("\"spy\"") && !subscribed.text.contains("serverErrorCode"),
            "\(subscribed.text)")
        try ChangesAPITests.create(server, "private", "diary-0", token: stolen)
        let before = try server.send("GET", target)
        #expect(
            try before.status == 200 && before.json()["ck"]?["qry"]?["af"] == ["title": "diary-0"],
            "the channel works while the session lives")

        var password = server.password
        switch remedy {
        case "sign out everywhere":
            try server.store.signOutEverywhere(
                try #require(try server.store.user(named: "alice", in: server.container)).userRecordName, in: server.container)
        case "new password":
            password = "a brand new passphrase"
            try server.store.setPassword(
                password, of: try #require(try server.store.user(named: "alice", in: server.container)).userRecordName, in: server.container
            )
        default: try server.store.signOut(webAuthToken: stolen, in: server.container, .development)
        }
        let caller = try server.send("GET", server.authorized(server.path("public", "users/caller"), webAuthToken: stolen))
        #expect(caller.status == 421)

        let victim = try server.store.signIn(server.container, .development, name: "alice", password: password).webAuthToken
        let saved = try server.post(
            "private", "records/modify",
            """
            {"operations":[{"operationType":"create","record":{"recordName":"diary-1","recordType":"Note",
              "fields":{"title":{"value":"PRIVATE: new bank PIN 4711"}}}}]}
            """, webAuthToken: victim)
        #expect(saved.status == 200, "\(saved.text)")
        let after = try server.send("GET", target)
        #expect(after.status == 404 && after.body.isEmpty, "\(after.text)")
        #expect(!after.text.contains("4711"))
    }

    /// Security review N2, as the review ran it: 200 `tokens/create` calls by one signed-in
    /// user. The calls past the user's allowance are throttled; the user holds the cap at most.
    @Test func tokensCreateIsLimitedForSignedInUsersToo() throws {
        let server = try APITestServer()
        let token = try server.signIn()
        var statuses: [Int: Int] = [:]
        for _ in 0..<200 {
            let response = try server.post("public", "tokens/create", #"{"apnsEnvironment":"development"}"#, webAuthToken: token)
            statuses[response.status, default: 0] += 1
            if response.status != 200 { #expect(response.text.contains("THROTTLED"), "\(response.text)") }
        }
        #expect((statuses[200] ?? 0) <= 20, "\(statuses)")
        #expect((statuses[503] ?? 0) + (statuses[429] ?? 0) >= 180, "\(statuses)")
        let alice = try #require(try server.store.user(named: "alice", in: server.container)).userRecordName
        #expect(try server.store.pushTokens(server.container, .development, of: alice).count <= 20)
    }
}

/// A response handed from a background thread.
final class DeliveredAnswer: @unchecked Sendable {
    // Guarded by `lock`; the test thread and the polling thread both touch `response`.
    private let lock = NSLock()
    private var response: APIResponse?
    func set(_ value: APIResponse?) { lock.withLock { response = value } }
    func get() -> APIResponse? { lock.withLock { response } }
}
