import Foundation
import HTTPServer
import TestSupport
import Testing

@testable import CloudStore
@testable import WebServices

/// Subscriptions over HTTP and the web courier as CloudKit JS uses them: `tokens/create`, then
/// `subscriptions/modify`, then GETs of `webcourierURL`, one notification per answer.
@Suite struct CourierAPITests {
    /// The courier path of `webcourierURL`, to GET on the test server.
    static func courierTarget(_ server: APITestServer, token: String) throws -> String {
        let created = try server.post(
            "public", "tokens/register", #"{"apnsEnvironment":"development","apnsToken":"\#(token)"}"#,
            webAuthToken: try server.signIn())
        let url = try #require(try created.json()["webcourierURL"]?.stringValue)
        return String(url.dropFirst("http://127.0.0.1:\(server.port)".count))
    }

    static func subscribe(_ server: APITestServer, _ token: String, _ subscription: String) throws {
        let response = try server.post(
            "public", "subscriptions/modify", #"{"operations":[{"operationType":"create","subscription":\#(subscription)}]}"#,
            webAuthToken: token)
        #expect(response.status == 200, "\(response.text)")
        #expect(try response.json()["subscriptions"]?[0]?["serverErrorCode"] == nil, "\(response.text)")
    }

    @Test func subscriptionsModifyListAndLookupSpeakCloudKitsDictionaries() throws {
        let server = try APITestServer()
        try server.defineNote(#"title STRING QUERYABLE"#)
        let token = try server.signIn()
        let saved = try server.post(
            "public", "subscriptions/modify",
            """
            {"operations":[
              {"operationType":"create","subscription":{"subscriptionID":"notes","subscriptionType":"query",
                "query":{"recordType":"Note","filterBy":[{"comparator":"EQUALS","fieldName":"title","fieldValue":{"value":"x"}}]},
                "firesOn":["create","delete"],"notificationInfo":{"alertBody":"New note","shouldBadge":true,"additionalFields":["title"]}}},
              {"operationType":"create","subscription":{"subscriptionID":"z","subscriptionType":"zone","zoneID":{"zoneName":"_defaultZone"}}},
              {"operationType":"create","subscription":{"subscriptionID":"bad","subscriptionType":"query","query":{"recordType":"Nope"}}}
            ]}
            """, webAuthToken: token)
        #expect(saved.status == 200, "\(saved.text)")
        let body = try saved.json()
        #expect(body["subscriptions"]?[0]?["subscriptionID"] == "notes" && body["subscriptions"]?[0]?["zoneWide"] == true)
        #expect(body["subscriptions"]?[0]?["firesOn"] == ["create", "delete"] && body["subscriptions"]?[0]?["firesOnce"] == false)
        #expect(body["subscriptions"]?[0]?["query"]?["filterBy"]?[0]?["fieldValue"] == ["value": "x", "type": "STRING"])
        #expect(body["subscriptions"]?[0]?["notificationInfo"]?["alertBody"] == "New note")
        #expect(body["subscriptions"]?[1]?["zoneID"]?["zoneName"] == "_defaultZone")
        #expect(
            body["subscriptions"]?[2] == [
                "subscriptionID": "bad", "reason": "Did not find record type: Nope", "serverErrorCode": "BAD_REQUEST",
            ])

        let list = try server.send("GET", server.authorized(server.path("public", "subscriptions/list"), webAuthToken: token))
        #expect(try list.json()["subscriptions"]?.arrayValue?.map { $0["subscriptionID"] } == ["notes", "z"])
        let lookup = try server.post(
            "public", "subscriptions/lookup", #"{"subscriptions":[{"subscriptionID":"z"},{"subscriptionID":"q"}]}"#,
            webAuthToken: token)
        #expect(try lookup.json()["subscriptions"]?[1]?["serverErrorCode"] == "NOT_FOUND")
        let deleted = try server.post(
            "public", "subscriptions/modify", #"{"operations":[{"operationType":"delete","subscription":{"subscriptionID":"z"}}]}"#,
            webAuthToken: token)
        #expect(try deleted.json()["subscriptions"]?[0] == ["subscriptionID": "z", "deleted": true])

        let world = try server.post("public", "subscriptions/list", "{}")
        #expect(try world.status == 421 && world.json()["serverErrorCode"] == "AUTHENTICATION_REQUIRED", "the world holds no subscriptions")
    }

    @Test func aPollAnswersTheOldestNotificationAndWaitsWhenThereIsNone() throws {
        let server = try APITestServer(courierTimeout: .milliseconds(400))
        try server.defineNote(#"title STRING QUERYABLE"#)
        let token = try server.signIn()
        let pushToken = try server.store.createPushToken(server.container, .development, apnsEnvironment: "development", caller: .world)
        let target = try Self.courierTarget(server, token: pushToken.token)
        try Self.subscribe(
            server, token,
            #"{"subscriptionID":"notes","query":{"recordType":"Note"},"notificationInfo":{"alertBody":"Note!","additionalFields":["title"]}}"#
        )

        // Nothing queued: an empty 200 after the timeout.
        let empty = try server.send("GET", target)
        #expect(empty.status == 200 && empty.body.isEmpty)

        // Queued while nobody polls: kept, and handed out oldest first, one per poll.
        try ChangesAPITests.create(server, "public", "n1", token: token)
        try ChangesAPITests.create(server, "public", "n2", token: token)
        let first = try server.send("GET", target).json()
        #expect(first["aps"] == ["alert": ["body": "Note!"]])
        #expect(first["ck"]?["cid"] == "iCloud.com.example.Notes" && first["ck"]?["ce"] == 2)
        #expect(first["ck"]?["qry"]?["sid"] == "notes" && first["ck"]?["qry"]?["rid"] == "n1" && first["ck"]?["qry"]?["fo"] == 1)
        #expect(
            first["ck"]?["qry"]?["zid"] == "_defaultZone" && first["ck"]?["qry"]?["dbs"] == 0
                && first["ck"]?["qry"]?["af"] == ["title": "n1"])
        #expect(try server.send("GET", target).json()["ck"]?["qry"]?["rid"] == "n2")

        // A poll that waits is answered by the next change.
        let slow = try APITestServer(courierTimeout: .seconds(20))
        try slow.defineNote(#"title STRING QUERYABLE"#)
        let slowUser = try slow.signIn()
        let slowToken = try slow.store.createPushToken(slow.container, .development, apnsEnvironment: "development", caller: .world)
        let slowTarget = try Self.courierTarget(slow, token: slowToken.token)
        try Self.subscribe(slow, slowUser, #"{"subscriptionID":"z","subscriptionType":"zone","zoneID":{"zoneName":"_defaultZone"}}"#)
        let answer = DeliveredAnswer()
        let port = slow.port
        let thread = Thread { answer.set(try? HTTPTestClient.send(port: port, method: "GET", target: slowTarget, body: nil, headers: [:])) }
        thread.start()
        var waited = 0
        while slow.api.courier.waitingCount(for: slowToken.token) == 0 && waited < 500 {
            usleep(10_000)
            waited += 1
        }
        try ChangesAPITests.create(slow, "public", "late", token: slowUser)
        while answer.get() == nil && waited < 1_500 {
            usleep(10_000)
            waited += 1
        }
        let delivered = try #require(answer.get()).json()
        #expect(delivered["ck"]?["fet"] == ["sid": "z", "zid": "_defaultZone", "zoid": "_defaultOwner", "dbs": 0])
        #expect(delivered["aps"] == nil, "no notification info, no aps")

        // An unknown token: an empty 404, never JSON a client would take for a notification.
        let unknown = try server.send("GET", "/webcourier/1/aps?tok=nope&ttl=43200")
        #expect(unknown.status == 404 && unknown.body.isEmpty)
    }

    @Test func aStreamDeliversEveryNotificationAsAnEvent() throws {
        let server = try APITestServer()
        try server.defineNote(#"title STRING QUERYABLE"#)
        let token = try server.signIn()
        let pushToken = try server.store.createPushToken(server.container, .development, apnsEnvironment: "development", caller: .world)
        _ = try Self.courierTarget(server, token: pushToken.token)
        try Self.subscribe(server, token, #"{"subscriptionID":"notes","query":{"recordType":"Note"}}"#)
        try ChangesAPITests.create(server, "public", "before", token: token)

        let client = try RawClient(port: server.port)
        try client.send("GET /webcourier/1/events?tok=\(PercentEncoding.encodeComponent(pushToken.token)) HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try client.readHead()
        #expect(head.status == 200 && head.header("Content-Type")?.hasPrefix("text/event-stream") == true)
        var text = ""
        func read(until marker: String) throws {
            while !text.contains(marker), let chunk = try client.readChunk() { text += String(decoding: chunk, as: UTF8.self) }
        }
        try read(until: #""rid":"before""#)
        try ChangesAPITests.create(server, "public", "after", token: token)
        try read(until: #""rid":"after""#)
        #expect(text.contains("event: notification"))
        client.close()
        var waited = 0
        while try server.store.oldestNotification(for: pushToken) != nil && waited < 200 {
            usleep(10_000)
            waited += 1
        }
        #expect(try server.store.oldestNotification(for: pushToken) == nil, "what the stream delivered left the queue")
    }

    @Test func aChangeNotifyingManyWaitingPollsClaimsTheirNotificationsInOneTransaction() throws {
        let server = try APITestServer(courierTimeout: .seconds(20))
        try server.defineNote(#"title STRING QUERYABLE"#)
        let user = try server.signIn()
        try Self.subscribe(server, user, #"{"subscriptionID":"z","subscriptionType":"zone","zoneID":{"zoneName":"_defaultZone"}}"#)
        // One user's many devices, each polling its own token.
        let devices = 16
        var targets: [(token: String, target: String)] = []
        for _ in 0..<devices {
            let pushToken = try server.store.createPushToken(server.container, .development, apnsEnvironment: "development", caller: .world)
            let created = try server.post(
                "public", "tokens/register", #"{"apnsEnvironment":"development","apnsToken":"\#(pushToken.token)"}"#,
                webAuthToken: user)
            let url = try #require(try created.json()["webcourierURL"]?.stringValue)
            targets.append((pushToken.token, String(url.dropFirst("http://127.0.0.1:\(server.port)".count))))
        }
        let answers = targets.map { _ in DeliveredAnswer() }
        let port = server.port
        for (answer, device) in zip(answers, targets) {
            Thread { answer.set(try? HTTPTestClient.send(port: port, method: "GET", target: device.target, body: nil, headers: [:])) }
                .start()
        }
        let deadline = Date().addingTimeInterval(15)
        while targets.contains(where: { server.api.courier.waitingCount(for: $0.token) == 0 }) {
            try #require(Date() < deadline, "the polls never all waited")
            usleep(5_000)
        }
        // Each poll's own first look at its empty queue must be over, or under load one may run
        // after the change and claim its token's entry by itself.
        server.api.courier.settle()
        let storage = try server.store.environment(server.container, .development)
        let before = storage.writeStatistics.transactions

        try ChangesAPITests.create(server, "public", "shared", token: user)
        while answers.contains(where: { $0.get() == nil }) {
            try #require(Date() < deadline, "not every poll was answered")
            usleep(5_000)
        }
        for answer in answers {
            #expect(try #require(answer.get()).json()["ck"]?["fet"]?["sid"] == "z")
        }
        // The change's own transaction and one claim for every token; idle polls wrote nothing.
        #expect(storage.writeStatistics.transactions - before <= 2, "one claim for all the polls, not one each")
        #expect(try server.store.queuedNotificationCounts(server.container, .development).isEmpty)
    }
}
