import CloudKitWire
import CloudStore
import Foundation
import TestSupport
import Testing

/// The privacy routes of the management API: a user's export streamed as a tar archive, their
/// erasure after a dry run, the audit trail's export with operators' reads; the wrong operator refused.
@Suite struct UserPrivacyRoutesTests {
    @Test func aUserIsExportedAndErasedOnlyByAnOperatorWhoMay() throws {
        let server = try ConsoleTestServer()
        let store = server.store
        try store.addOperator("root", password: "operator password")
        try store.addOperator("vera", password: "operator password", role: .viewer)
        try store.addOperator("dev", password: "operator password", role: .developer)
        let alice = try store.addUser(server.container, name: "alice", password: "a long passphrase").userRecordName
        _ = try store.addUser(server.container, name: "bob", password: "a long passphrase")
        for (user, name) in [(alice, "alice-diary")] {
            let saved = try store.database(server.container, .development, .private, as: .user(user)).modify(
                ModifyRequest(operations: [
                    RecordOperation(.create, recordName: name, recordType: "Diary", fields: ["text": .string("secret")])
                ]))
            #expect(saved.first?.record != nil)
        }
        func auth(_ name: String) throws -> [(String, String)] {
            [("Authorization", "Bearer " + (try store.createManagementToken(for: name, name: "t").text))]
        }
        let (root, viewer, developer) = (try auth("root"), try auth("vera"), try auth("dev"))
        let base = "/admin/v1/containers/\(server.container)/users/alice"
        func send(_ method: String, _ path: String, _ body: String = "", _ headers: [(String, String)]) throws -> TestResponse {
            try HTTPTestClient.send(port: server.port, method: method, target: path, headers: headers, body: Array(body.utf8))
        }

        // The wrong operators are refused, and nothing changes.
        #expect(try send("GET", base + "/export", "", viewer).status == 403)
        #expect(try send("POST", base + "/erase", #"{"dryRun":true}"#, viewer).status == 403)
        #expect(try send("POST", base + "/erase", "{}", developer).status == 403, "both environments reach production")
        #expect(try store.user(alice, in: server.container) != nil)

        let export = try send("GET", base + "/export?environment=development", "", root)
        #expect(export.status == 200)
        #expect(export.header("Content-Type") == "application/octet-stream")
        #expect(export.header("Content-Disposition") == "attachment; filename=\"alice-export.tar\"")
        let archive = String(decoding: export.body, as: UTF8.self)
        #expect(archive.contains("development/private/_defaultZone.jsonl") && archive.contains("\"alice-diary\""))
        #expect(archive.contains("\"name\":\"alice\"") && !archive.contains("\"name\":\"bob\""))

        let dryRun = try send("POST", base + "/erase", #"{"dryRun":true}"#, root)
        #expect(dryRun.status == 200)
        let counts = try dryRun.json()
        #expect(
            counts["dryRun"] == true && counts["environments"]?["development"]?["privateRecords"] == 1 && counts["accountRemoved"] == true)
        #expect(try store.user(alice, in: server.container) != nil, "a dry run changes nothing")
        let erased = try send("POST", base + "/erase", "{}", root)
        let erasure = try erased.json()
        #expect(erased.status == 200 && erasure["dryRun"] == false)
        #expect(try store.user(alice, in: server.container) == nil)
        #expect(try store.auditEntries(AuditFilter(action: "user.")).map(\.action).prefix(2) == ["user.erase", "user.export"])

        // A viewer reads the audit trail, the reads of private records among it, and exports it.
        let bob = try #require(try store.user(named: "bob", in: server.container))
        _ = try store.database(server.container, .development, .private, as: .user(bob.userRecordName)).modify(
            ModifyRequest(operations: [
                RecordOperation(.create, recordName: "bob-diary", recordType: "Diary", fields: ["text": .string("x")])
            ]))
        let lookup = try send(
            "POST", "/admin/v1/containers/\(server.container)/development/private/records/lookup?user=bob",
            #"{"records":[{"recordName":"bob-diary"}]}"#, root)
        #expect(lookup.status == 200)
        #expect(
            try send(
                "POST", "/admin/v1/containers/\(server.container)/development/private/records/lookup?user=bob",
                #"{"records":[{"recordName":"bob-diary"}]}"#, viewer
            ).status == 403)
        let trail = try send("GET", "/admin/v1/audit/export?action=record.read", "", viewer)
        #expect(trail.status == 200 && trail.header("Content-Type")?.hasPrefix("application/x-ndjson") == true)
        let lines = String(decoding: trail.body, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 1)
        let entry = try JSONValue.parse(Array(lines[0].utf8))
        #expect(
            entry["operator"] == "root" && entry["target"] == "private of bob _defaultZone: bob-diary" && entry["action"] == "record.read")
    }
}
