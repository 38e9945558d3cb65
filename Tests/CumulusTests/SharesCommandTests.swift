import CloudStore
import Foundation
import TestSupport
import Testing

@Suite struct SharesCommandTests {
    /// `shares leave` takes the participant out of the zone's shares through the management
    /// action; leaving a zone the user is not in is refused with the reason and changes nothing.
    @Test func aParticipantLeavesASharedZoneAndOnlyOnce() throws {
        let fixture = try AdminFixture()
        let store = fixture.store
        let environment = fixture.fixture.postgresDatabase.map { ["CUMULUS_DATABASE_URL": $0.url] } ?? [:]
        let place = ["--container", fixture.container, "--environment", "development", "--data-dir", fixture.fixture.directory]
        let bob = try #require(try store.user(named: "bob", in: fixture.fixture.container)).userRecordName
        func bobsStatus() throws -> ShareParticipant.AcceptanceStatus? {
            try store.shares(fixture.fixture.container, .development).first { $0.recordName == "share-trip" }?
                .participants.first { $0.userRecordName == bob }?.acceptanceStatus
        }
        #expect(try bobsStatus() == .accepted)

        let left = try CumulusBinary.run(
            ["shares", "leave", "--owner", "alice", "--zone", "Work", "--user", "bob"] + place, environment: environment)
        #expect(left.status == 0, "\(left.error)")
        #expect(left.output.trimmingCharacters(in: .whitespacesAndNewlines) == "bob left zone Work of alice: share-trip.")
        #expect(try bobsStatus() != .accepted)

        let again = try CumulusBinary.run(
            ["shares", "leave", "--owner", "alice", "--zone", "Work", "--user", "bob"] + place, environment: environment)
        #expect(again.status != 0)
        #expect(again.error.contains("bob is in no share of alice's zone Work"), "\(again.error)")
        let owner = try CumulusBinary.run(
            ["shares", "leave", "--owner", "alice", "--zone", "Work", "--user", "alice"] + place, environment: environment)
        #expect(owner.status != 0)
        #expect(owner.error.contains("alice is in no share of alice's zone Work"), "\(owner.error)")
        #expect(try store.auditEntries(AuditFilter(limit: 10)).filter { $0.action == "share.leave" }.count == 1)
    }
}
