import CloudStore
import Foundation
import TestSupport
import Testing

extension AdminFixture {
    /// Bob creates the note `by-bob`, which fires alice's subscription `notes`, with alice's
    /// device awake by the real clock the command line reads (the store's clock moves to it, and
    /// her device registers again, or its token would have idled out by the command's clock).
    /// - Returns: the environment that points the command line at the fixture's store.
    func bobNotesWithAlicesDeviceAwake() throws -> [String: String] {
        let c = fixture.container
        let bob = try #require(try store.user(named: "bob", in: c)).userRecordName
        let alice = try #require(try store.user(named: "alice", in: c)).userRecordName
        fixture.clock.advance(by: Int64(Date().timeIntervalSince1970 * 1000) - fixture.clock.tick())
        try store.registerPushToken("alicedevicetoken", c, .development, apnsEnvironment: "development", caller: .user(alice))
        _ = try store.database(c, .development, .public, as: .user(bob)).modify(
            ModifyRequest(operations: [RecordOperation(.create, recordName: "by-bob", recordType: "Note", fields: ["title": .string("Hi")])]
            ))
        return fixture.postgresDatabase.map { ["CUMULUS_DATABASE_URL": $0.url] } ?? [:]
    }
}
