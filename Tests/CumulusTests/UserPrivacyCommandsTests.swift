import CloudStore
import Foundation
import TestSupport
import Testing

/// `cumulus users export|erase` and `cumulus audit --reads --export` on a data directory.
@Suite struct UserPrivacyCommandsTests {
    /// The text of one member of a tar archive, read by the system's tar.
    static func member(_ name: String, of archive: String) throws -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["tar", "-xOf", archive, name]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : nil
    }

    @Test func aUserIsExportedThenErasedAndOperatorsReadsAreExported() throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        let container = "iCloud.com.example.Notes"
        #expect(try CumulusBinary.run(["containers", "create", container, "--data-dir", data]).status == 0)
        for name in ["alice", "bob"] {
            let added = try CumulusBinary.run(
                ["users", "add", "--container", container, name, "--data-dir", data], input: "a long passphrase\n")
            #expect(added.status == 0, "\(added.error)")
        }
        let identifier = try ContainerIdentifier(container)
        do {
            let store = try CloudStore(configuration: CloudStoreConfiguration(dataDirectory: data))
            for name in ["alice", "bob"] {
                let user = try #require(try store.user(named: name, in: identifier))
                let database = try store.database(identifier, .development, .private, as: .user(user.userRecordName))
                let saved = try database.modify(
                    ModifyRequest(operations: [
                        RecordOperation(
                            .create, recordName: "\(name)-diary", recordType: "Diary", fields: ["text": .string("dear \(name)")])
                    ]))
                #expect(saved.first?.record != nil, "\(saved)")
            }
        }
        let archive = directory.path + "/alice.tar"
        let export = try CumulusBinary.run(["users", "export", "--container", container, "alice", "--to", archive, "--data-dir", data])
        #expect(export.status == 0, "\(export.error)")
        let diary = try #require(try Self.member("development/private/_defaultZone.jsonl", of: archive))
        #expect(diary.contains("\"alice-diary\"") && diary.contains("dear alice"))
        #expect(!diary.contains("bob"))
        #expect(try Self.member("user.json", of: archive)?.contains("\"name\":\"alice\"") == true)

        let dryRun = try CumulusBinary.run(["users", "erase", "--container", container, "alice", "--dry-run", "--data-dir", data])
        #expect(dryRun.status == 0, "\(dryRun.error)")
        #expect(dryRun.output.contains("\"dryRun\" : true") || dryRun.output.contains("\"dryRun\": true"), "\(dryRun.output)")
        #expect(dryRun.output.contains("\"privateRecords\" : 1") || dryRun.output.contains("\"privateRecords\": 1"), "\(dryRun.output)")
        let erase = try CumulusBinary.run(["users", "erase", "--container", container, "alice", "--data-dir", data])
        #expect(erase.status == 0, "\(erase.error)")

        // An operator's read of bob's private records is in the audit trail, and in its export.
        let read = try CumulusBinary.run(
            ["records", "lookup", "--container", container, "--database", "private", "--user", "bob", "bob-diary", "--data-dir", data])
        #expect(read.status == 0, "\(read.error)")
        let audit = try CumulusBinary.run(["audit", "--reads", "--export", "--data-dir", data])
        #expect(audit.status == 0, "\(audit.error)")
        let lines = audit.output.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.contains("private of bob _defaultZone: bob-diary") == true, "\(audit.output)")

        let store = try CloudStore(configuration: CloudStoreConfiguration(dataDirectory: data))
        #expect(try store.user(named: "alice", in: identifier) == nil)
        #expect(try store.user(named: "bob", in: identifier) != nil)
        let actions = try store.auditEntries(AuditFilter(container: container)).map(\.action)
        #expect(actions.filter { $0 == "user.export" || $0 == "user.erase" }.count == 2)
    }
}
