import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CloudStore

/// Two processes writing one PostgreSQL database under contention: a transaction held open in
/// one zone holds back no other zone's feed, and writers spread over many zones and both
/// processes neither deadlock nor lose a write.
@Suite(.enabled(if: TestBackend.isDefaultRun, "Runs against PostgreSQL itself, once, in the default run"))
struct PostgresContentionTests {
    let database: TestDatabase
    let first: CloudStore
    let second: CloudStore
    let container = try! ContainerIdentifier("iCloud.com.example.Contention")

    init() throws {
        database = try TestPostgres.makeDatabase()
        first = try database.process()
        second = try database.process()
        try first.createContainer(container)
    }

    func alice(_ store: CloudStore) throws -> CloudDatabase {
        try store.database(container, .development, .private, as: .user("alice"))
    }

    static func note(_ name: String, _ value: Int64, in zone: String, _ kind: RecordOperation.Kind = .forceUpdate) -> ModifyRequest {
        ModifyRequest(
            operations: [RecordOperation(kind, recordName: name, recordType: "Note", fields: ["n": .int64(value)])], zoneName: zone)
    }

    /// The deadlocks PostgreSQL has detected in the database so far.
    func deadlocks(_ raw: RawPostgres) throws -> Int {
        Int(try raw.execute("SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()")[0][0]) ?? -1
    }

    @Test func aTransactionHeldOpenInOneZoneHoldsBackNoOtherZonesFeed() throws {
        let writer = try alice(first)
        _ = try writer.modifyZones(["Busy", "Quiet"].map { ZoneOperation(.create, zoneName: $0) })
        _ = try writer.modify(Self.note("b", 1, in: "Busy", .create))
        _ = try writer.modify(Self.note("q", 1, in: "Quiet", .create))
        let reader = try alice(second)
        let quiet = try reader.zoneChanges(zoneName: "Quiet", syncToken: nil)
        let busy = try reader.zoneChanges(zoneName: "Busy", syncToken: nil)
        let zones = try reader.databaseChanges(syncToken: nil)

        // Another writer in Busy, stuck for seconds: it has locked Busy's zone, its record and
        // the zone's counter row, as a write does by its last statement, and has not committed.
        let schema = PostgresStorageBackend.environmentSchema(container, .development)
        let holder = try RawPostgres(url: database.url)
        try holder.execute(
            """
            BEGIN ISOLATION LEVEL REPEATABLE READ;
            SELECT 1 FROM "\(schema)".zones WHERE name = 'Busy' FOR KEY SHARE;
            SELECT 1 FROM "\(schema)".records r JOIN "\(schema)".zones z ON z.zone = r.zone WHERE z.name = 'Busy' FOR UPDATE OF r;
            UPDATE "\(schema)".zones SET last_seq = last_seq WHERE name = 'Busy';
            """)
        let held = Date()

        // Meanwhile the other process writes in Quiet and in the default zone, and readers on
        // both processes see those changes while the Busy transaction is still open. The
        // writes are not waited for here: were they held back, the test must still end.
        let written = DispatchSemaphore(value: 0)
        let failures = Mutex<[String]>([])
        for request in [Self.note("q", 2, in: "Quiet"), Self.note("d", 1, in: ZoneID.defaultZoneName, .create)] {
            try alice(second).modify(request) { result in
                if case .failure(let error) = result { failures.withLock { $0.append("\(error)") } }
                written.signal()
            }
        }
        // Held up to 3 s, the length of transaction that held every zone's feed back under the
        // watermark scheme: a deadline, not a measurement.
        var seenWhileHeld = false
        while Date().timeIntervalSince(held) < 3 {
            let page = try alice(first).zoneChanges(zoneName: "Quiet", syncToken: quiet.syncToken)
            if page.records.compactMap({ $0.record?.recordName }) == ["q"] {
                seenWhileHeld = true
                break
            }
            usleep(2_000)
        }
        let openStill = try holder.execute("SELECT txid_current_if_assigned() IS NOT NULL")
        #expect(openStill == [["t"]], "the Busy transaction is open throughout")
        #expect(seenWhileHeld, "Quiet's change was read while a transaction in Busy stayed open")
        let bothWritten = written.wait(timeout: .now() + 0.5) == .success && written.wait(timeout: .now() + 0.5) == .success
        guard bothWritten else {
            try holder.execute("ROLLBACK")
            Issue.record("writes in other zones waited on the transaction in Busy")
            return
        }
        #expect(failures.withLock { $0 } == [])
        let listed = try reader.databaseChanges(syncToken: zones.syncToken).zones.compactMap { change -> String? in
            if case .zone(let zone) = change { zone.zoneID.zoneName } else { nil }
        }
        #expect(Set(listed) == ["Quiet", ZoneID.defaultZoneName], "the database's feed lists the zones written while Busy was held")
        // Busy's own feed holds nothing new; once the holder commits, writes there go on.
        #expect(try reader.zoneChanges(zoneName: "Busy", syncToken: busy.syncToken).records.isEmpty)
        try holder.execute("COMMIT")
        _ = try alice(second).modify(Self.note("b", 2, in: "Busy"))
        #expect(try reader.zoneChanges(zoneName: "Busy", syncToken: busy.syncToken).records.compactMap { $0.record?.recordName } == ["b"])
    }

    @Test func sixtyFourWritersOverManyZonesAndTwoProcessesNeitherDeadlockNorLoseAWrite() throws {
        let zones = (0..<8).map { "Z\($0)" }
        let setup = try alice(first)
        _ = try setup.modifyZones(zones.map { ZoneOperation(.create, zoneName: $0) })
        // Records every writer updates, so that writers in different zones and processes
        // contend for the same rows as well as for the zones' counters.
        for zone in zones {
            _ = try setup.modify(
                ModifyRequest(
                    operations: (0..<4).map {
                        RecordOperation(.create, recordName: "shared\($0)", recordType: "Note", fields: ["n": .int64(0)])
                    },
                    zoneName: zone))
        }
        let raw = try RawPostgres(url: database.url)
        let deadlocksBefore = try deadlocks(raw)
        let failures = Mutex<[String]>([])
        let created = Mutex<[String: Set<String>]>([:])
        let databases = [try alice(first), try alice(second)]
        DispatchQueue.concurrentPerform(iterations: 64) { writer in
            var random = SeededGenerator(seed: UInt64(64 + writer))
            let database = databases[writer % 2]
            var mine: [String: Set<String>] = [:]
            for step in 0..<12 {
                let zone = zones[random.next(below: zones.count)]
                var operations = [
                    RecordOperation(.create, recordName: "w\(writer)-\(step)", recordType: "Note", fields: ["n": .int64(Int64(step))])
                ]
                for shared in Set((0..<2).map { _ in random.next(below: 4) }).sorted(by: { _, _ in random.next(below: 2) == 0 }) {
                    operations.append(
                        RecordOperation(
                            .forceUpdate, recordName: "shared\(shared)", recordType: "Note", fields: ["n": .int64(Int64(writer))]))
                }
                do {
                    let results = try database.modify(ModifyRequest(operations: operations, zoneName: zone))
                    if let error = results.compactMap(\.error).first {
                        failures.withLock { $0.append("writer \(writer) step \(step): \(error)") }
                    } else {
                        mine[zone, default: []].insert("w\(writer)-\(step)")
                    }
                } catch {
                    failures.withLock { $0.append("writer \(writer) step \(step): \(error)") }
                }
            }
            created.withLock { all in all.merge(mine) { $0.union($1) } }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(try deadlocks(raw) == deadlocksBefore, "PostgreSQL detected no deadlock")
        // Every write the writers were told of is there, and each zone's feed is dense.
        let reader = try alice(second)
        for zone in zones {
            var names: Set<String> = []
            var token: String?
            var more = true
            while more {
                let page = try reader.zoneChanges(zoneName: zone, syncToken: token, resultsLimit: 50)
                names.formUnion(page.records.compactMap { $0.record?.recordName })
                token = page.syncToken
                more = page.moreComing
            }
            #expect(names == created.withLock { $0[zone] ?? [] }.union((0..<4).map { "shared\($0)" }), "zone \(zone)")
        }
    }
}
