import Dispatch
import Foundation
import TestSupport
import Testing

@testable import CloudStore

/// The request log's blocks: every filter over many blocks answers exactly what checking each
/// entry would, the first layout's rows survive the move into blocks, and a block straddling
/// the retention shows only what is kept.
@Suite(.enabled(if: TestBackend.isSQLite, "About SQLite files and the SQLite writer themselves")) struct RequestLogBlockTests {
    /// Entries varied in every filtered field, many more than a block holds.
    static func entries(_ count: Int, start: Int64) -> [RequestLogEntry] {
        var generator = SeededGenerator(seed: 7)
        return (0..<count).map { index in
            let status = [200, 200, 200, 400, 401, 503][Int(generator.next() % 6)]
            return RequestLogEntry(
                time: start + Int64(index) * 37, container: ["iCloud.a", "iCloud.b"][Int(generator.next() % 2)],
                environment: ["development", "production"][Int(generator.next() % 2)],
                database: ["public", "private", ""][Int(generator.next() % 3)],
                operation: ["records/query", "records/lookup", "zones/list", "records/modify"][Int(generator.next() % 4)],
                user: generator.next() % 3 == 0 ? nil : "_user\(generator.next() % 5)", clientAddress: "10.0.0.\(generator.next() % 4)",
                status: status, serverErrorCode: status >= 400 ? "CODE\(status)" : nil,
                durationMicroseconds: Int64(generator.next() % 5_000),
                bytesIn: Int64(generator.next() % 900), bytesOut: Int64(generator.next() % 90_000), requestID: "request-\(index)")
        }
    }

    @Test func everyFilterOverManyBlocksAnswersWhatCheckingEachEntryWould() throws {
        let store = try TemporaryStore()
        let log = store.store.requestLog
        let start = store.clock.tick()
        let written = Self.entries(5_000, start: start)
        // In batches of varied size, so that blocks are written open and again once closed.
        var offset = 0
        for size in [1, 3, 700, 1_500, 96, 2_700] {
            for entry in written[offset..<offset + size] { log.record(entry) }
            try log.flush()
            offset += size
        }
        let all = try log.entries(RequestLogFilter(limit: 10_000))
        #expect(all.count == 5_000)
        #expect(all.map(\.requestID) == written.reversed().map(\.requestID))
        #expect(Set(all.map(\.id)).count == 5_000 && all.map(\.id) == all.map(\.id).sorted(by: >), "ids are unique and in order")
        let stored = Dictionary(uniqueKeysWithValues: all.map { ($0.requestID, $0) })
        for entry in written {
            var copy = entry
            copy.id = stored[entry.requestID]?.id ?? -1
            #expect(stored[entry.requestID] == copy, "every field comes back as recorded")
        }
        let filters = [
            RequestLogFilter(container: "iCloud.b", limit: 50),
            RequestLogFilter(container: "iCloud.a", environment: "production", limit: 70),
            RequestLogFilter(database: "", limit: 5_000), RequestLogFilter(operation: "zones/list", user: "_user3", limit: 40),
            RequestLogFilter(user: "_user9", limit: 10), RequestLogFilter(status: 503, limit: 30),
            RequestLogFilter(errorsOnly: true, limit: 1_000),
            RequestLogFilter(container: "iCloud.b", errorsOnly: true, from: start + 50_000, to: start + 120_000, limit: 500),
            RequestLogFilter(operation: "records/modify", before: all[2_500].id, limit: 100),
        ]
        for filter in filters {
            // Page through with `before`, as the console does, and compare with the entries checked one by one.
            var pages: [RequestLogEntry] = []
            var page = filter
            while true {
                let next = try log.entries(page)
                pages += next
                guard next.count == page.limit, let last = next.last else { break }
                page.before = last.id
            }
            let expected = all.filter { entry in filter.matches(entry) && (filter.before.map { entry.id < $0 } ?? true) }
            #expect(pages.map(\.requestID) == expected.map(\.requestID), "\(filter)")
        }
        #expect(try log.entries(RequestLogFilter(user: "_user9")).isEmpty)
    }

    @Test func callsRecordedOnManyThreadsAreAllKeptOnceInTimeOrder() throws {
        let store = try TemporaryStore()
        let log = store.store.requestLog
        let start = store.clock.tick()
        let entries = Self.entries(8_000, start: start)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in stride(from: thread, to: entries.count, by: 8) { log.record(entries[index]) }
        }
        try log.flush()
        let stored = try log.entries(RequestLogFilter(limit: 10_000))
        #expect(stored.count == 8_000)
        #expect(Set(stored.map(\.requestID)) == Set(entries.map(\.requestID)))
        #expect(stored.map(\.id) == Array((1...8_000).reversed()), "ids are given without gaps, newest first")
        // Each thread's calls keep the order it made them in (ids growing with its calls' times).
        let idByRequest = Dictionary(uniqueKeysWithValues: stored.map { ($0.requestID, $0.id) })
        let outOfOrder = (0..<8).filter { thread in
            let ids = stride(from: thread, to: entries.count, by: 8).map { idByRequest[entries[$0].requestID] ?? 0 }
            return ids != ids.sorted()
        }
        #expect(outOfOrder.isEmpty, "threads whose calls were reordered: \(outOfOrder)")
        #expect(log.droppedCount == 0)
    }

    @Test func callsMadeOneAfterAnotherOnTwoThreadsKeepTheirOrderWithinOneMillisecond() throws {
        let store = try TemporaryStore()
        let log = store.store.requestLog
        // One millisecond for every call: only the order they were recorded in tells them apart.
        let entries = Self.entries(200, start: store.clock.tick()).map { entry -> RequestLogEntry in
            var entry = entry
            entry.time = 1_700_000_000_000
            return entry
        }
        let turns = [DispatchSemaphore(value: 1), DispatchSemaphore(value: 0)]
        let done = DispatchSemaphore(value: 0)
        for side in 0..<2 {
            Thread {
                for index in stride(from: side, to: entries.count, by: 2) {
                    turns[side].wait()
                    log.record(entries[index])
                    turns[1 - side].signal()
                }
                done.signal()
            }.start()
        }
        done.wait()
        done.wait()
        try log.flush()
        #expect(try log.entries(RequestLogFilter(limit: 1_000)).map(\.requestID) == entries.reversed().map(\.requestID))
    }

    @Test func rowsOfTheFirstLayoutAreMovedIntoBlocks() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/requests.sqlite"
        do {
            // The file as the release before blocks left it: one row per call, ids with a gap
            // where the retention cut.
            let before = SQLiteMigrator(migrations: Array(SQLiteRequestLogStore.migrator.migrations.prefix(5)))
            let database = try SQLiteDatabase(path: path, synchronous: .normal, migrator: before)
            try database.write { connection in
                for (id, entry) in zip([Int64(1), 2, 3, 7, 8], Self.entries(5, start: 1_000)) {
                    try connection.statement(
                        """
                        INSERT INTO requests(id, time, container, environment, database, operation, user, client, status, error_code,
                                             duration_us, bytes_in, bytes_out, request_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """
                    ).execute([
                        .integer(id), .integer(entry.time), .text(entry.container), .text(entry.environment), .text(entry.database),
                        .text(entry.operation), .text(entry.user), .text(entry.clientAddress), .integer(Int64(entry.status)),
                        .text(entry.serverErrorCode), .integer(entry.durationMicroseconds), .integer(entry.bytesIn),
                        .integer(entry.bytesOut),
                        .text(entry.requestID),
                    ])
                }
            }
        }
        let store = try SQLiteRequestLogStore(path: path, synchronous: .normal)
        let moved = try store.entries(RequestLogFilter())
        #expect(moved.map(\.id) == [8, 7, 3, 2, 1])
        #expect(moved.map(\.requestID) == Self.entries(5, start: 1_000).reversed().map(\.requestID))
        #expect(try store.lastID() == 8, "new calls go on after the old ids")
        #expect(try store.entries(RequestLogFilter(user: moved[0].user)).first?.requestID == moved[0].requestID)
    }

    @Test func aBlockStraddlingTheRetentionShowsOnlyTheKeptEntries() throws {
        // A retention shorter than a block's span, so that one block holds entries on both sides.
        let retention: Int64 = 60_000
        let store = try TemporaryStore { $0.requestLogRetention = retention }
        let log = store.store.requestLog
        log.record(RequestLogTests.entry(0, time: store.clock.tick()))
        try log.flush()
        store.clock.advance(by: retention - 1_000)
        log.record(RequestLogTests.entry(1, time: store.clock.tick()))
        try log.flush()
        store.clock.advance(by: 2_000)
        #expect(try log.entries(RequestLogFilter()).map(\.requestID) == ["r1"])
    }
}
