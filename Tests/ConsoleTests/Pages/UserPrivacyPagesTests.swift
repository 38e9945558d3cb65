import CloudKitWire
import CloudStore
import Foundation
import TestSupport
import Testing

@testable import Console

/// The users page's export and erase over a real socket: the export downloads the archive, the
/// erase shows the dry run's counts as its confirmation and erases once confirmed; the audit page
/// filters operators' reads and exports them.
@Suite struct UserPrivacyPagesTests {
    static let users = "/console/containers/iCloud.com.example.Tests/development/users"

    @Test func aUserIsExportedThenErasedAfterTheDryRunsConfirmation() throws {
        let server = try ConsoleTestServer()
        let store = server.store
        let (cookie, csrf) = try server.signedInOperator()
        let alice = try store.addUser(server.container, name: "alice", password: "a long passphrase").userRecordName
        let saved = try store.database(server.container, .development, .private, as: .user(alice)).modify(
            ModifyRequest(operations: [
                RecordOperation(.create, recordName: "alice-diary", recordType: "Diary", fields: ["text": .string("secret")])
            ]))
        #expect(saved.first?.record != nil)

        let list = try server.get(Self.users, headers: [cookie])
        #expect(list.text.contains("href=\"\(Self.users)/\(alice)/export\""))
        #expect(list.text.contains("action=\"\(Self.users)/\(alice)/erase\""))
        let export = try server.get(Self.users + "/\(alice)/export", headers: [cookie])
        #expect(export.status == 200 && export.header("Content-Disposition") == "attachment; filename=\"alice-export.tar\"")
        #expect(export.text.contains("development/private/_defaultZone.jsonl") && export.text.contains("alice-diary"))

        let confirm = try server.post(Self.users + "/\(alice)/erase", form: [("csrfToken", csrf)], headers: [cookie])
        #expect(confirm.status == 200)
        #expect(confirm.text.contains("Erase user alice"))
        #expect(confirm.text.contains("development: 1 private records in 1 zones (0 shares)"))
        #expect(confirm.text.contains("name=\"confirmed\" value=\"yes\""))
        #expect(try store.user(alice, in: server.container) != nil, "the dry run changed nothing")

        let erased = try server.post(Self.users + "/\(alice)/erase", form: [("csrfToken", csrf), ("confirmed", "yes")], headers: [cookie])
        #expect(erased.status == 303 && erased.header("Location")?.hasPrefix(Self.users) == true)
        #expect(try store.user(alice, in: server.container) == nil)
        #expect(!(try server.get(Self.users, headers: [cookie]).text.contains(alice)))

        // The audit page offers the reads filter and the export of what it lists.
        let audit = try server.get("/console/audit?action=user.", headers: [cookie])
        #expect(
            audit.text.contains("<option value=\"record.read\">Reads of users&#39; records</option>")
                || audit.text.contains("Reads of users"))
        #expect(audit.text.contains("href=\"/console/audit/export?action=user.\""))
        let lines = try server.get("/console/audit/export?action=user.", headers: [cookie]).text.split(separator: "\n")
        #expect(lines.count == 2 && lines[0].contains("\"action\":\"user.erase\"") && lines[1].contains("\"action\":\"user.export\""))
    }
}
