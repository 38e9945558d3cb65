import CloudKitWire
import CloudStore
import Console
import Foundation
import HTTPServer
import TestSupport
import Testing

/// The delivery tracer through the management API: a script learns why a subscriber was not
/// notified, and an operator without access to the container is refused by the store.
@Suite struct DeliveryTraceAPITests {
    @Test func aScriptLearnsWhyASubscriberWasNotNotifiedAndAnOutsiderIsRefused() throws {
        let server = try ConsoleTestServer()
        let store = server.store
        try store.addOperator("root", password: "operator password")
        try store.importSchema(
            """
            DEFINE SCHEMA
                RECORD TYPE Note ("___recordID" REFERENCE QUERYABLE, priority INT64 QUERYABLE,
                    GRANT WRITE TO "_creator", GRANT CREATE TO "_icloud", GRANT READ TO "_world");
            """, into: server.container, .development)
        let alice = try store.addUser(server.container, name: "alice", password: "a long passphrase").userRecordName
        let bob = try store.addUser(server.container, name: "bob", password: "a long passphrase").userRecordName
        _ = try store.createPushToken(server.container, .development, apnsEnvironment: "development", caller: .user(alice))
        _ = try store.database(server.container, .development, .public, as: .user(alice)).modifySubscriptions([
            SubscriptionOperation(
                .create,
                Subscription(
                    subscriptionID: "urgent",
                    kind: .query(
                        Query(recordType: "Note", filters: [QueryFilter(.field("priority"), .greaterThan, .int64(5))]), zoneName: nil,
                        firesOn: [.create], firesOnce: false)))
        ])
        _ = try store.database(server.container, .development, .public, as: .user(bob)).modify(
            ModifyRequest(operations: [RecordOperation(.create, recordName: "calm", recordType: "Note", fields: ["priority": .int64(1)])]))

        func call(_ token: String, _ path: String) throws -> (Int, JSONValue) {
            let response = try HTTPTestClient.send(
                port: server.port, method: "GET", target: "/admin/v1/containers/\(server.container)/development" + path,
                headers: [("Authorization", "Bearer " + token)], body: [])
            return (response.status, try response.json())
        }
        let root = try store.createManagementToken(for: "root", name: "t").text
        let (status, answer) = try call(root, "/public/zones/_defaultZone/records/calm/delivery")
        #expect(status == 200)
        #expect(answer["change"]?["kind"] == "create" && answer["change"]?["recordType"] == "Note")
        let urgent = try #require(answer["subscriptions"]?.arrayValue?.first)
        #expect(urgent["userName"] == "alice" && urgent["matched"] == false && urgent["rule"] == "filters")
        #expect(urgent["fate"] == "not matched" && urgent["why"] == "Not notified: the record does not pass its query's filters")
        #expect(try DeliveryTraceView(json: answer).json == answer, "the typed answer reads back what was sent")
        #expect(try call(root, "/public/zones/_defaultZone/records/missing/delivery").0 == 404)

        // An owner of another container only is refused, by the store's operator access rules.
        let other = try ContainerIdentifier("iCloud.com.example.Other")
        try store.createContainer(other)
        try store.addOperator("outsider", password: "operator password", role: .owner, containers: [other])
        let outsider = try store.createManagementToken(for: "outsider", name: "t").text
        let (refused, error) = try call(outsider, "/public/zones/_defaultZone/records/calm/delivery")
        #expect(refused == 403)
        #expect(error["reason"]?.stringValue?.contains("may act only in iCloud.com.example.Other") == true, "\(error)")
        #expect(throws: CloudStoreError.self) {
            try store.traceDelivery(
                server.container, .development, database: .public, zoneName: ZoneID.defaultZoneName, recordName: "calm",
                as: .token(operatorName: "outsider", tokenID: "t"))
        }
    }
}
