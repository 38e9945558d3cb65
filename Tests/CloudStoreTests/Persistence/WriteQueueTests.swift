import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CloudStore

/// Writes from many threads at once go through one writer, committed in groups.
@Suite(.enabled(if: TestBackend.isSQLite, "About SQLite files and the SQLite writer themselves")) struct WriteQueueTests {
    @Test func concurrentWritersEachGetTheirOwnResultAndTheLogStaysGapless() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        let threads = 8, perThread = 60
        let failures = FailureCounter()
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<perThread {
                do {
                    let name = "t\(thread)-\(index)"
                    let results = try database.modify(
                        ModifyRequest(operations: [
                            RecordOperation(.create, recordName: name, recordType: "Note", fields: ["thread": .int64(Int64(thread))]),
                            // Every fourth request also asks for something that fails on its own.
                            index % 4 == 0
                                ? RecordOperation(.update, recordName: "missing-\(name)", recordChangeTag: "1")
                                : RecordOperation(.create, recordName: name + "-b", recordType: "Note"),
                        ]))
                    guard results[0].record?.recordName == name, results[0].record?.fields["thread"] == .int64(Int64(thread)) else {
                        failures.add("wrong result for \(name): \(results[0])")
                        continue
                    }
                    if index % 4 == 0, results[1].error != .notFound("Record not found") { failures.add("\(name): \(results[1])") }
                } catch {
                    failures.add("\(error)")
                }
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all.prefix(3))")
        let expected = threads * perThread + threads * perThread * 3 / 4
        let log = try HandedOffWriteTests.publicFeed(store.store.environment(store.container, .development))
        #expect(log.count == expected)
        #expect(log.map(\.sequence) == Array(1...Int64(expected)))
        #expect(Set(log.map(\.recordName)).count == expected)
    }

    @Test func aSchemaChangeRunsAloneWhileRecordWritesContinue() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        try database.create("Note", "seed", ["title": .string("seed words")])
        let failures = FailureCounter()
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for index in 0..<20 {
                do {
                    if worker == 0 {
                        try store.store.importSchema(
                            "DEFINE SCHEMA RECORD TYPE Note ( \"___recordID\" REFERENCE QUERYABLE, title STRING QUERYABLE \(index % 2 == 0 ? "SEARCHABLE" : "") );",
                            into: store.container, .development)
                    } else {
                        _ = try database.create("Note", "w\(worker)-\(index)", ["title": .string("words \(index)")])
                    }
                } catch {
                    failures.add("\(error)")
                }
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all.prefix(3))")
        let all = try database.query(QueryRequest(query: Query(recordType: "Note")))
        #expect(all.records.count == 61)
    }
}

/// Writes handed to the writer without a thread waiting for each.
@Suite(.enabled(if: TestBackend.isSQLite, "About SQLite files and the SQLite writer themselves")) struct HandedOffWriteTests {
    @Test func everyWriteWaitingSharesOneCommitAndAFailingOneUndoesOnlyItself() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        try database.create("Note", "seed", ["title": .string("seed")])
        let held = try store.store.limitStorage(of: store.container, headroom: 20_000)
        let storage = try store.store.environment(store.container, .development)
        let before = storage.writeStatistics

        let count = 40, failing = 17
        // One write that alone passes the storage limit: its records are written, then refused.
        let answers = Self.oneGroup(
            of: count, failing: failing, in: database, storage,
            operations: { index, title in
                [
                    RecordOperation(.create, recordName: "n\(index)", recordType: "Note", fields: ["title": .string(title)]),
                    RecordOperation(.create, recordName: "n\(index)-b", recordType: "Note"),
                ]
            },
            whileHeld: { #expect(storage.writeStatistics.waiting == count, "handing a write in waits for nothing") })

        let after = storage.writeStatistics
        #expect(after.transactions - before.transactions == 2, "the holding job, then all \(count) modifies in one transaction")
        #expect(after.largestGroup == count)
        #expect(after.groupsRunTwice - before.groupsRunTwice == 1, "run without savepoints, then again with them once one failed")
        for (index, result) in answers.enumerated() {
            if index == failing {
                #expect(throws: CloudStoreError.self) { try result.get() }
            } else {
                let results = try result.get()
                #expect(results.map { $0.record?.recordName } == ["n\(index)", "n\(index)-b"])
            }
        }
        let found = try database.lookup((0..<count).flatMap { [RecordLookup("n\($0)"), RecordLookup("n\($0)-b")] })
        #expect(found.compactMap { $0.record?.recordName }.count == (count - 1) * 2)
        #expect(found[failing * 2].record == nil && found[failing * 2 + 1].record == nil, "the failing write left nothing")
        let log = try HandedOffWriteTests.publicFeed(storage)
        #expect(log.map(\.sequence) == Array(1...Int64(1 + (count - 1) * 2)), "the change log stays dense")
        #expect(try store.store.usage(of: store.container)[.development]?.recordBytes ?? 0 < held + 20_000)
    }
}

extension HandedOffWriteTests {
    /// The change log of the public database's default zone, from the start.
    static func publicFeed(_ storage: any EnvironmentStorage) throws -> [ChangeEntry] {
        try storage.read { reader in
            try reader.changes(in: try #require(try reader.zone(named: "_defaultZone", in: .public)), after: 0, limit: 10_000)
        }
    }
}

extension HandedOffWriteTests {
    /// Hands in `count` modifies while the writer is held, so that they form one group (none
    /// has a thread waiting for it), runs `whileHeld`, lets the writer go and waits for their
    /// answers. Modify `index` is `operations(index, title)`, the title passing the storage
    /// limit for the one at `failing`.
    static func oneGroup(
        of count: Int, failing: Int?, in database: CloudDatabase, _ storage: any EnvironmentStorage,
        operations: (Int, String) -> [RecordOperation], whileHeld: () -> Void = {}
    ) -> [Result<[RecordResult], any Error>] {
        let writer = HeldWriter { hold in _ = try? storage.write { _ in hold() } }
        let answers = Mutex<[Int: Result<[RecordResult], any Error>]>([:])
        let finished = DispatchGroup()
        for index in 0..<count {
            finished.enter()
            let title = index == failing ? String(repeating: "x", count: 30_000) : "note \(index)"
            database.modify(ModifyRequest(operations: operations(index, title))) { result in
                answers.withLock { $0[index] = result }
                finished.leave()
            }
        }
        whileHeld()
        writer.release()
        finished.wait()
        return answers.withLock { answers in (0..<count).map { answers[$0]! } }
    }

    /// `oneGroup` of creates of one record each, named `prefix` and the index.
    static func oneGroup(
        of count: Int, prefix: String, failing: Int?, in database: CloudDatabase, _ storage: any EnvironmentStorage
    ) -> [Result<[RecordResult], any Error>] {
        oneGroup(of: count, failing: failing, in: database, storage) { index, title in
            [RecordOperation(.create, recordName: "\(prefix)\(index)", recordType: "Note", fields: ["title": .string(title)])]
        }
    }

    /// A group of handed-off writes runs without a savepoint per job while none fails; one that
    /// fails makes it run again with savepoints, and the groups after it start with savepoints,
    /// so that a failing writer does not make every group run twice. Each way, the failing job
    /// alone is undone.
    @Test func aGroupRunsWithoutSavepointsUntilAJobFails() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        try database.create("Note", "seed", ["title": .string("seed")])
        try store.store.limitStorage(of: store.container, headroom: 20_000)
        let storage = try store.store.environment(store.container, .development)
        let start = storage.writeStatistics

        let clean = Self.oneGroup(of: 12, prefix: "a", failing: nil, in: database, storage)
        #expect(clean.map { try? $0.get().first?.record?.recordName } == (0..<12).map { "a\($0)" })
        let afterClean = storage.writeStatistics
        #expect(afterClean.largestGroup == 12)
        #expect(afterClean.groupsRunTwice == start.groupsRunTwice, "no job failed: the group ran once")

        for (round, prefix) in ["b", "c"].enumerated() {
            let before = storage.writeStatistics
            let results = Self.oneGroup(of: 12, prefix: prefix, failing: 7, in: database, storage)
            for (index, result) in results.enumerated() {
                if index == 7 {
                    #expect(throws: CloudStoreError.self) { try result.get() }
                } else {
                    #expect((try? result.get().first?.record?.recordName) == "\(prefix)\(index)")
                }
            }
            let after = storage.writeStatistics
            #expect(after.transactions - before.transactions == 2, "the holding job, then the group")
            // The first failing group ran twice; the next one took savepoints from the start.
            #expect(after.groupsRunTwice - before.groupsRunTwice == (round == 0 ? 1 : 0))
            let found = try database.lookup((0..<12).map { RecordLookup("\(prefix)\($0)") })
            #expect(found.map { $0.record != nil } == (0..<12).map { $0 != 7 }, "the failing write alone left nothing")
        }
        let log = try HandedOffWriteTests.publicFeed(storage)
        #expect(log.map(\.sequence) == Array(1...Int64(1 + 12 + 11 + 11)), "the change log stays dense")
    }
}

extension HandedOffWriteTests {
    /// Many writers at once, one write in ten failing as a whole: whatever groups form, run
    /// once or twice, every write that succeeded is there, every one that failed left nothing,
    /// and the change log is dense.
    @Test func concurrentWritesWithFailuresLeaveExactlyTheSuccessfulOnes() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        try database.create("Note", "seed", ["title": .string("seed")])
        try store.store.limitStorage(of: store.container, headroom: 400_000)
        let storage = try store.store.environment(store.container, .development)
        let threads = 8, perThread = 60
        let failures = FailureCounter()
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<perThread {
                let name = "c\(thread)-\(index)"
                let failing = index % 10 == 3
                // Alone past the storage limit: written, then refused, so the whole write fails.
                let title = failing ? String(repeating: "x", count: 500_000) : "note \(name)"
                do {
                    let results = try database.modify(
                        ModifyRequest(operations: [
                            RecordOperation(.create, recordName: name, recordType: "Note", fields: ["title": .string(title)])
                        ]))
                    if failing || results.first?.record?.recordName != name { failures.add("\(name): \(results)") }
                } catch {
                    if !failing { failures.add("\(name): \(error)") }
                }
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all.prefix(3))")
        let names = (0..<threads).flatMap { thread in (0..<perThread).map { (name: "c\(thread)-\($0)", failing: $0 % 10 == 3) } }
        let found = try stride(from: 0, to: names.count, by: 200).flatMap { start in
            try database.lookup(names[start..<min(start + 200, names.count)].map { RecordLookup($0.name) })
        }
        #expect(found.count == names.count)
        #expect(zip(names, found).allSatisfy { ($1.record != nil) == !$0.failing }, "exactly the writes that succeeded are there")
        let log = try HandedOffWriteTests.publicFeed(storage)
        let succeeded = names.filter { !$0.failing }.count
        #expect(log.map(\.sequence) == Array(1...Int64(1 + succeeded)), "the change log stays dense")
        #expect(Set(log.map(\.recordName)) == Set(["seed"] + names.filter { !$0.failing }.map(\.name)))
    }
}

extension HandedOffWriteTests {
    /// The last jobs of a group fail: nothing they found or made reaches the writer's memory,
    /// so the next write takes the next sequence and finds only zones that were committed.
    @Test func theFailedLastJobsOfAGroupLeaveNothingInTheWritersMemory() throws {
        let store = try TemporaryStore()
        let user = try store.store.addUser(store.container, name: "ann", password: "a long passphrase").userRecordName
        let database = try store.privateDatabase(of: user)
        try store.store.limitStorage(of: store.container, headroom: 20_000)
        let storage = try store.store.environment(store.container, .development)
        let huge = String(repeating: "x", count: 30_000)
        func create(_ name: String, _ title: String) -> [RecordOperation] {
            [RecordOperation(.create, recordName: name, recordType: "Note", fields: ["title": .string(title)])]
        }

        // The first writes to the private database: each would make its default zone.
        let first = Self.oneGroup(of: 2, failing: nil, in: database, storage) { index, _ in create("z\(index)", huge) }
        #expect(first.allSatisfy { (try? $0.get()) == nil }, "both refused past the limit")
        #expect(try database.modify(ModifyRequest(operations: create("after-zone", "t"))).first?.record?.recordName == "after-zone")
        #expect(try database.lookup([RecordLookup("after-zone")]).first?.record?.recordName == "after-zone")

        // A committed job, then two that fail.
        let second = Self.oneGroup(of: 3, failing: nil, in: database, storage) { index, _ in create("g\(index)", index == 0 ? "t" : huge) }
        #expect(second.map { (try? $0.get())?.first?.record?.recordName } == ["g0", nil, nil])
        _ = try database.modify(ModifyRequest(operations: create("after-group", "t")))

        let feed = try storage.read { reader in
            try reader.changes(in: try #require(try reader.zone(named: "_defaultZone", in: database.database)), after: 0, limit: 100)
                .map { "\($0.sequence) \($0.recordName)" }
        }
        #expect(feed == ["1 after-zone", "2 g0", "3 after-group"], "no sequence taken by the failed jobs")
    }
}

extension WriteQueueTests {
    /// Under load the writer does not wait while a group's answers are made: a job that arrives
    /// while a group runs is committed and answered even while the earlier answer is still
    /// being made.
    @Test func aGroupsAnswersDoNotHoldUpTheJobsWaitingBehindIt() throws {
        let store = try TemporaryStore()
        let storage = try store.store.environment(store.container, .development)
        let firstRunning = DispatchSemaphore(value: 0), secondHandedIn = DispatchSemaphore(value: 0)
        let secondAnswered = DispatchSemaphore(value: 0), firstAnswered = DispatchSemaphore(value: 0)
        let outcomes = Mutex<[String]>([])
        storage.write({ _ in
            firstRunning.signal()
            secondHandedIn.wait()
            return 1
        }) { result in
            // The writer's thread would make this wait forever: the second job needs it.
            let sawSecond = secondAnswered.wait(timeout: .now() + 20) == .success
            outcomes.withLock { $0.append("first \((try? result.get()) ?? 0), saw the second answered: \(sawSecond)") }
            firstAnswered.signal()
        }
        firstRunning.wait()
        storage.write({ _ in 2 }) { result in
            outcomes.withLock { $0.append("second \((try? result.get()) ?? 0)") }
            secondAnswered.signal()
        }
        secondHandedIn.signal()
        firstAnswered.wait()
        #expect(outcomes.withLock { $0 } == ["second 2", "first 1, saw the second answered: true"])
        #expect(storage.writeStatistics.transactions >= 2, "two groups, not one")
    }
}

extension WriteQueueTests {
    /// What one user's writes leave behind, run with `hold` true as one group (the writer held
    /// while they are handed in) or else one at a time: counts per zone and type, the stored
    /// bytes, and the database's zone feed. One write fails (past the storage limit) after
    /// writing to a zone; another deletes a zone an earlier write of the group wrote to.
    static func writesOfOneUser(inOneGroup hold: Bool) throws -> (counts: [String], feed: [String], storedBytes: Int64) {
        let store = try TemporaryStore()
        let (_, database) = try DatabaseChangesTests.aliceWithZones(store)
        let storage = try store.store.environment(store.container, .development)
        try store.store.limitStorage(of: store.container, headroom: 20_000)
        let writer = hold ? HeldWriter { hold in _ = try? storage.write { _ in hold() } } : nil
        let finished = DispatchGroup()
        let waitingBefore = storage.writeStatistics.waiting
        var handedIn = 0
        func handIn(_ work: @escaping @Sendable () -> Void) {
            finished.enter()
            DispatchQueue.global().async {
                work()
                finished.leave()
            }
            handedIn += 1
            if hold {
                // In order: each waits in the queue before the next is handed in.
                while storage.writeStatistics.waiting < waitingBefore + handedIn { usleep(1_000) }
            } else {
                finished.wait()
            }
        }
        func create(_ names: [String], in zone: String, title: String = "t") -> @Sendable () -> Void {
            let request = ModifyRequest(
                operations: names.map { RecordOperation(.create, recordName: $0, recordType: "Note", fields: ["title": .string(title)]) },
                zoneName: zone)
            return { _ = try? database.modify(request) }
        }
        handIn(create(["w1", "w2", "w3"], in: "Work"))
        handIn(create(["h1", "h2"], in: "Home"))
        handIn(create(["t1"], in: "Trips", title: String(repeating: "x", count: 30_000)))  // refused: past the limit
        handIn { _ = try? database.modifyZones([ZoneOperation(.delete, zoneName: "Home")]) }
        handIn(create(["d1"], in: "_defaultZone"))
        writer?.release()
        finished.wait()

        let counts = try storage.read { reader in
            try reader.zoneStats().map { "\($0.zone.zoneID.zoneName): \($0.records) records, \($0.bytes) bytes" }.sorted()
                + reader.recordCounts(in: nil).map { "\($0.key): \($0.value)" }.sorted()
        }
        let feed = try database.databaseChanges(syncToken: nil).zones.map(DatabaseChangesTests.describe)
        return (counts, feed, try store.store.usage(of: store.container)[.development]?.recordBytes ?? -1)
    }

    /// The jobs of a group write their counts and zone log once, before the group commits:
    /// the outcome is the same as writing them one at a time, a failed job's share included.
    @Test func aGroupWritesTheCountsAndZoneLogOneAtATimeWritesWould() throws {
        let alone = try Self.writesOfOneUser(inOneGroup: false)
        let grouped = try Self.writesOfOneUser(inOneGroup: true)
        #expect(alone.feed == ["Trips", "Work", "deleted Home", "_defaultZone"], "the refused write left Trips where it was")
        #expect(alone.counts.contains { $0.hasPrefix("Work: 3 records") } && alone.counts.contains("Note: 4"), "\(alone.counts)")
        #expect(!alone.counts.contains { $0.hasPrefix("Home") })
        #expect(grouped.counts == alone.counts)
        #expect(grouped.feed == alone.feed)
        #expect(grouped.storedBytes == alone.storedBytes)
    }
}

/// Messages collected from several threads.
final class FailureCounter: Sendable {
    private let messages = Mutex<[String]>([])
    func add(_ message: String) { messages.withLock { $0.append(message) } }
    var all: [String] { messages.withLock { $0 } }
}
