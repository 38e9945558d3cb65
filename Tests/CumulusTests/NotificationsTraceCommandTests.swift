import CloudStore
import Foundation
import TestSupport
import Testing

@Suite struct NotificationsTraceCommandTests {
    /// `notifications trace` prints the record's latest change, then each subscription with its
    /// fate and why, and each push token's part in what it queued.
    @Test func aTracePrintsWhySubscribersWereOrWereNotNotified() throws {
        let fixture = try AdminFixture()
        let environment = try fixture.bobNotesWithAlicesDeviceAwake()
        let c = fixture.fixture.container
        let bob = try #require(try fixture.store.user(named: "bob", in: c)).userRecordName
        let asBob = try fixture.store.database(c, .development, .public, as: .user(bob))
        func trace() throws -> [[String]] {
            let run = try CumulusBinary.run(
                [
                    "notifications", "trace", "--container", fixture.container, "--record", "by-bob", "--data-dir",
                    fixture.fixture.directory,
                ],
                environment: environment)
            #expect(run.status == 0, "\(run.error)")
            return run.output.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        }
        var lines = try trace()
        #expect(Array(lines.first?.prefix(4) ?? []) == ["change", "create", "by-bob", "Note"], "\(lines)")
        var notes = try #require(lines.first { $0.first == "subscription" && $0.contains("notes") })
        #expect(
            Array(notes.prefix(6)) == ["subscription", "alice", "public", "notes", "Note in every zone, on create", "queued"], "\(notes)")
        #expect(lines.contains { $0.first == "    push-token" && $0[1] == fixture.pushTokenID && $0[2] == "waiting" }, "\(lines)")

        _ = try asBob.modify(
            ModifyRequest(operations: [
                RecordOperation(.forceUpdate, recordName: "by-bob", recordType: "Note", fields: ["title": .string("Changed")])
            ]))
        lines = try trace()
        #expect(lines.first?[1] == "update")
        notes = try #require(lines.first { $0.first == "subscription" && $0.contains("notes") })
        #expect(Array(notes.suffix(2)) == ["not matched", "Not notified: it fires on create, not on update"], "\(notes)")
    }
}
