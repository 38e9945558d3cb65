import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CloudStore

/// Random writes from several threads at once, in three zones, some bringing fields the schema
/// lacks, some failing per record, some atomically, some as a whole: however the writer groups
/// them and runs them again, the file ends as their answers say, and what the store keeps
/// beside the records (feeds, counts, the zone log, the schema) agrees with them.
@Suite(.enabled(if: TestBackend.isSQLite, "About SQLite files and the SQLite writer themselves")) struct ConcurrentWriteInvariantTests {
    /// What one thread's writes left, by what their answers said: the names alive per zone.
    typealias Expected = [String: Set<String>]

    /// What one thread saw: the names alive per zone, the fields new to the schema its saved
    /// and its refused writes carried, and what its answers got wrong.
    struct Outcome: Sendable {
        var expected: Expected
        var savedFields: Set<String> = []
        var refusedFields: Set<String> = []
        var failures: [String] = []
    }

    static let zones = ["_defaultZone", "Work", "Home"]

    /// One thread's writes: creates, updates and deletes of its own records; one write in ten
    /// too large for the storage limit (refused as a whole); atomic writes in the custom zones
    /// with one operation that fails (refused together).
    static func writes(thread: Int, count: Int, in database: CloudDatabase) -> Outcome {
        var random = SeededGenerator(seed: UInt64(2_026 + thread))
        var outcome = Outcome(expected: Dictionary(uniqueKeysWithValues: zones.map { ($0, Set<String>()) }))
        var made = 0
        for step in 0..<count {
            let zone = zones[random.next(below: zones.count)]
            let huge = step % 10 == 7
            let atomicFailure = !huge && zone != "_defaultZone" && random.next(below: 6) == 0
            var operations: [RecordOperation] = []
            var planned = outcome.expected[zone]!
            for _ in 0..<(1 + random.next(below: 3)) {
                let existing = planned.sorted()
                // A write refused as a whole starts with a record past the storage limit.
                switch existing.isEmpty || (huge && operations.isEmpty) ? 0 : random.next(below: 3) {
                case 0:
                    let name = "t\(thread)-\(made)"
                    made += 1
                    let title = huge && operations.isEmpty ? String(repeating: "x", count: 500_000) : "note \(name)"
                    // Now and then a field the schema does not have yet: development adds it.
                    var fields: [String: FieldValue] = ["title": .string(title)]
                    if random.next(below: 8) == 0 { fields["extra\(thread)x\(step)x\(operations.count)"] = .int64(Int64(step)) }
                    operations.append(RecordOperation(.create, recordName: name, recordType: "Note", fields: fields))
                    planned.insert(name)
                case 1:
                    let name = existing[random.next(below: existing.count)]
                    guard !operations.contains(where: { $0.recordName == name }) else { continue }
                    operations.append(
                        RecordOperation(.forceUpdate, recordName: name, recordType: "Note", fields: ["title": .string("edited \(step)")]))
                default:
                    let name = existing[random.next(below: existing.count)]
                    guard !operations.contains(where: { $0.recordName == name }) else { continue }
                    operations.append(RecordOperation(.forceDelete, recordName: name))
                    planned.remove(name)
                }
            }
            if atomicFailure {
                operations.append(RecordOperation(.update, recordName: "missing-\(thread)-\(step)", recordChangeTag: "1"))
            }
            let atomic = zone != "_defaultZone"
            let newFields = Set(operations.flatMap { $0.fields.keys.filter { $0.hasPrefix("extra") } })
            do {
                let results = try database.modify(ModifyRequest(operations: operations, zoneName: zone, atomic: atomic))
                if huge { outcome.failures.append("write \(thread)/\(step) passed the storage limit and was saved") }
                if atomicFailure {
                    if results.contains(where: { $0.error == nil }) {
                        outcome.failures.append("atomic write \(thread)/\(step) partly saved")
                    }
                    outcome.refusedFields.formUnion(newFields)
                } else if results.contains(where: { $0.error != nil }) {
                    outcome.failures.append("write \(thread)/\(step): \(results.compactMap(\.error))")
                } else {
                    outcome.expected[zone] = planned
                    outcome.savedFields.formUnion(newFields)
                }
            } catch {
                if !huge { outcome.failures.append("write \(thread)/\(step) failed: \(error)") }
                outcome.refusedFields.formUnion(newFields)
            }
        }
        return outcome
    }

    @Test func theFileEndsAsTheAnswersSaidAndItsCountsAndFeedsAgree() throws {
        let store = try TemporaryStore()
        let (_, database) = try DatabaseChangesTests.aliceWithZones(store)
        try store.store.limitStorage(of: store.container, headroom: 400_000)
        let threads = 6, perThread = 60
        let outcomes = Mutex<[Int: Outcome]>([:])
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            let outcome = Self.writes(thread: thread, count: perThread, in: database)
            outcomes.withLock { $0[thread] = outcome }
        }
        let all = outcomes.withLock { $0 }
        #expect(all.values.flatMap(\.failures).isEmpty, "\(all.values.flatMap(\.failures).prefix(3))")

        let path = store.store.backend.environmentStorageName(store.container, .development)
        let connection = try SQLiteConnection(path: path, synchronous: .normal)
        /// The first column of each row, as text.
        func rows(_ sql: String) throws -> [String] { try connection.statement(sql).rows { $0.text(0) } }
        // Exactly the records the answers said are alive, zone by zone.
        for zone in Self.zones {
            let expected = all.values.reduce(into: Set<String>()) { $0.formUnion($1.expected[zone] ?? []) }
            let stored = Set(
                try rows(
                    "SELECT r.name FROM records r JOIN zones z ON z.zone = r.zone WHERE z.name = '\(zone)' AND z.scope = 1"))
            #expect(stored == expected, "zone \(zone): \(stored.symmetricDifference(expected).sorted().prefix(5))")
        }
        #expect(
            try rows("SELECT count(*) FROM records WHERE zone NOT IN (SELECT zone FROM zones)") == ["0"], "no record in a zone never made")
        // Each zone's feed is dense, and its latest entry for each name says what the file holds.
        #expect(try rows("SELECT zone FROM changes GROUP BY zone HAVING min(seq) != 1 OR max(seq) != count(*)").isEmpty)
        #expect(
            try rows(
                """
                SELECT c.name FROM changes c
                WHERE c.seq = (SELECT max(seq) FROM changes d WHERE d.zone = c.zone AND d.name = c.name)
                  AND (c.kind = 3) = EXISTS (SELECT 1 FROM records r WHERE r.zone = c.zone AND r.name = c.name)
                """
            ).isEmpty)
        #expect(
            try rows(
                "SELECT name FROM records r WHERE NOT EXISTS (SELECT 1 FROM changes c WHERE c.zone = r.zone AND c.name = r.name)"
            ).isEmpty)
        // The counts beside the records agree with them.
        #expect(
            try rows(
                """
                SELECT z.zone FROM zones z LEFT JOIN zone_stats s ON s.zone = z.zone
                WHERE coalesce(s.records, 0) != (SELECT count(*) FROM records r WHERE r.zone = z.zone)
                   OR coalesce(s.bytes, 0) != (SELECT coalesce(sum(size), 0) FROM records r WHERE r.zone = z.zone)
                """
            ).isEmpty)
        // The history's bytes, counted beside them, agree with the versions kept.
        #expect(
            try rows(
                """
                SELECT (SELECT coalesce(sum(bytes), 0) FROM zone_stats WHERE zone <= 0) || ' '
                    || (SELECT coalesce(sum(size), 0) FROM record_history)
                """
            ).map { Set($0.split(separator: " ")).count } == [1])
        #expect(try rows("SELECT count(*) > 0 FROM record_history") == ["1"], "the writes kept versions")
        #expect(
            try rows(
                """
                SELECT t.type || ' ' || t.zone FROM type_stats t
                WHERE t.records != (SELECT count(*) FROM records r WHERE r.zone = t.zone AND r.type = t.type)
                """
            ).isEmpty)
        // The database's zone log holds each zone once (Trips too, made and never written to),
        // at distinct positions.
        #expect(
            try rows("SELECT name FROM zone_log WHERE scope = 1 AND deleted = 0 ORDER BY name") == [
                "Home", "Trips", "Work", "_defaultZone",
            ])
        #expect(try rows("SELECT count(DISTINCT seq) = count(*) FROM zone_log") == ["1"])
        // The schema has every field a saved write brought, and none that only refused ones did.
        let fields = Set(try #require(try store.store.schema(store.container, .development).recordType("Note")).fields.map(\.name))
        let saved = all.values.reduce(into: Set<String>()) { $0.formUnion($1.savedFields) }
        let refused = all.values.reduce(into: Set<String>()) { $0.formUnion($1.refusedFields) }
        #expect(!saved.isEmpty && !refused.isEmpty, "the writes brought new fields both ways")
        #expect(saved.isSubset(of: fields), "\(saved.subtracting(fields).sorted().prefix(3))")
        #expect(refused.isDisjoint(with: fields), "\(refused.intersection(fields).sorted().prefix(3))")
    }
}
