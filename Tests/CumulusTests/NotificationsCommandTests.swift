import CloudStore
import Foundation
import TestSupport
import Testing

@Suite struct NotificationsCommandTests {
    /// `notifications` prints each subscription with when it last fired and how many it queued,
    /// then each push token with its last poll and its waiting notifications, payload included.
    @Test func subscriptionsAndQueuesArePrintedWithTheCouriersPayload() throws {
        let fixture = try AdminFixture()
        let environment = try fixture.bobNotesWithAlicesDeviceAwake()
        let run = try CumulusBinary.run(
            ["notifications", "--container", fixture.container, "--data-dir", fixture.fixture.directory], environment: environment)
        #expect(run.status == 0, "\(run.error)")
        let lines = run.output.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        let notes = try #require(lines.first { $0.first == "subscription" && $0.contains("notes") })
        #expect(Array(notes.prefix(5)) == ["subscription", "alice", "public", "notes", "Note in every zone, on create"])
        #expect(notes[5].hasPrefix("last fired 20") && notes[6] == "queued 1", "\(notes)")
        let token = try #require(lines.first { $0.first == "push-token" })
        #expect(token[1] == fixture.pushTokenID && token[2] == "alice" && token[4] == "last poll never" && token[5] == "waiting 1")
        let queued = try #require(lines.first { $0.first == "  notification" })
        #expect(queued[2] == "notes" && queued[3] == "create by-bob in zone _defaultZone", "\(queued)")
        #expect(queued[5].contains(#""sid":"notes","rid":"by-bob""#), "\(queued[5])")
    }
}
