import TestSupport
import Testing

@testable import CloudStore

/// The history and the trash count in storage: a deletion moves the record's bytes into the
/// trash, an update keeps the replaced version's, a deleted zone its records'; they leave it
/// when their retention ends, and a storage limit reached through them refuses a write.
extension RecordHistoryTests {
    @Test func theHistoryCountsInStorageUntilItsRetentionEnds() throws {
        let store = try TemporaryStore { $0.historyRetention = 3_600_000 }
        let db = try notes(store)
        for index in 0..<10 { _ = try save(db, "r\(index)", ["title": .string("note \(index)")]) }
        for index in 0..<3 { _ = try save(db, "o\(index)", ["title": .string(String(repeating: "o", count: 100 + index))], zone: "Other") }
        func usage() throws -> EnvironmentUsage { try store.store.usage(of: store.container, .development) }
        let before = try usage()
        #expect(before.historyBytes == 0)

        try delete(db, (0..<5).map { "r\($0)" })
        let trash = try store.store.trash(store.container, .development, in: HistoryScope(database: database), by: .local)
        let trashed = trash.records.reduce(Int64(0)) { $0 + Int64($1.size) }
        #expect(trash.records.count == 5 && trashed > 0)
        let afterDeletes = try usage()
        #expect(afterDeletes.historyBytes == trashed, "the usage grows by the trash's bytes")
        #expect(afterDeletes.recordBytes == before.recordBytes - trashed)
        #expect(afterDeletes.storageBytes == before.storageBytes, "a deletion moves its bytes into the trash, freeing none")

        // An update keeps the version it replaced; a deleted zone, its records.
        _ = try save(db, "r5", ["title": .string("changed")])
        let replaced = try store.store.history(ofRecord: "r5", zoneName: "Notes", in: database, store.container, .development, by: .local)
        let replacedBytes = Int64(try #require(replaced.entries.first).version.size)
        let other = try #require(try store.store.zoneUsage(store.container, .development).first { $0.zoneID.zoneName == "Other" })
        _ = try db.modifyZones([ZoneOperation(.delete, zoneName: "Other")])
        let kept = try usage()
        #expect(kept.historyBytes == trashed + replacedBytes + other.recordBytes)

        // Forgotten at the retention's end, they leave the storage.
        store.clock.advance(by: 3_600_000 + 1)
        #expect(try store.store.forgetExpiredVersions() == 5 + 1 + 3 + 1)
        let expired = try usage()
        #expect(expired.historyBytes == 0)
        #expect(expired.storageBytes == expired.recordBytes)
        #expect(expired.recordBytes == kept.recordBytes)
    }

    @Test func aStorageLimitReachedThroughTheHistoryRefusesAWrite() throws {
        let store = try TemporaryStore { $0.historyRetention = 3_600_000 }
        let db = try notes(store)
        for index in 0..<4 { _ = try save(db, "r\(index)", ["title": .string(String(repeating: "x", count: 200))]) }
        try delete(db, ["r0", "r1"])
        let held = try store.store.usage(of: store.container, .development).storageBytes
        try store.store.setLimits(
            EnvironmentLimits(requestsPerSecond: 100, burst: 100, storageBytes: held + 10), of: store.container, .development)

        // Records alone would fit: the update's record is no larger. The version it keeps does not.
        let current = try #require(try db.lookup([RecordLookup("r2")], zoneName: "Notes").first?.record)
        do {
            _ = try save(db, "r2", ["title": .string(String(repeating: "y", count: 200))])
            Issue.record("an update past the limit through its kept version was let in")
        } catch CloudStoreError.quotaExceeded(let reason) {
            #expect(reason.contains("\(held + 10) bytes"), "\(reason)")
        }
        #expect(try db.lookup([RecordLookup("r2")], zoneName: "Notes").first?.record?.changeTag == current.changeTag, "nothing written")
        // A deletion moves bytes, adding none: it goes in.
        try delete(db, ["r3"])
        #expect(try db.lookup([RecordLookup("r3")], zoneName: "Notes").first?.record == nil)

        // Once the trash's retention ends, the same update fits.
        store.clock.advance(by: 3_600_000 + 1)
        try store.store.forgetExpiredVersions()
        _ = try save(db, "r2", ["title": .string(String(repeating: "y", count: 200))])
    }
}
