import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CloudStore

/// A backend the request log can be kept in.
enum RequestLogBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }
}

/// A fresh, empty request log store on one backend, with what keeps its file or database alive
/// (until the value's last use: tests extend its lifetime to their end).
struct OpenRequestLogStore {
    let store: any RequestLogStorage
    /// The database's URL, on PostgreSQL.
    let url: String?
    private let keptAlive: any Sendable

    init(_ backend: RequestLogBackend) throws {
        switch backend {
        case .sqlite:
            let directory = try TemporaryDirectory(prefix: "request-log-contract")
            store = try SQLiteRequestLogStore(path: directory.path + "/requests.sqlite", synchronous: .normal)
            url = nil
            keptAlive = directory
        case .postgres:
            let database = try TestPostgres.makeDatabase()
            defer { withExtendedLifetime(database) {} }
            store = try PostgresRequestLogStore(url: database.url)
            url = database.url
            keptAlive = database
        }
    }
}

/// The same assertions against every request log backend: SQLite, a file of one process's own,
/// and PostgreSQL, which several processes share.
@Suite(.enabled(if: TestBackend.isDefaultRun, "Runs against PostgreSQL itself, once, in the default run"))
struct RequestLogStorageContractTests {
    static let start: Int64 = 1_700_000_000_000
    static let development = UsageMeter.Key(container: "iCloud.a", environment: "development")
    static let production = UsageMeter.Key(container: "iCloud.a", environment: "production")

    /// A minute's counts as one process would add them.
    static func usage(
        _ key: UsageMeter.Key, minute: Int64, requests: Int64, errors: Int64 = 0, bytesIn: Int64 = 0, bytesOut: Int64 = 0,
        durations: [Int64] = [], storageBytes: Int64? = nil
    ) -> UsageMinute {
        var row = UsageMinute(container: key.container, environment: key.environment, minute: minute)
        row.requests = requests
        row.errors = errors
        row.bytesIn = bytesIn
        row.bytesOut = bytesOut
        for duration in durations { row.latency.add(duration) }
        row.storageBytes = storageBytes
        return row
    }

    // MARK: - Entries

    @Test(arguments: RequestLogBackend.allCases)
    func entriesComeBackWhole(_ backend: RequestLogBackend) throws {
        let opened = try OpenRequestLogStore(backend)
        defer { withExtendedLifetime(opened) {} }
        let store = opened.store
        let written = RequestLogBlockTests.entries(40, start: Self.start)
        let ids = try store.append(written, usage: [], forgetBefore: nil, forgetUsageBefore: nil)
        #expect(ids.count == 40 && Set(ids).count == 40 && ids == ids.sorted(), "ids are unique and grow in the batch's order")
        let stored = try store.entries(RequestLogFilter(limit: 100))
        #expect(stored.map(\.id) == ids.reversed(), "newest first")
        let expected = zip(written, ids).map { entry, id in
            var entry = entry
            entry.id = id
            return entry
        }
        #expect(stored == expected.reversed(), "every field, a missing user and error code included, comes back as written")
        #expect(try store.entries(RequestLogFilter(limit: 0)).count == 1, "a page holds one entry at least")
    }

    @Test(arguments: RequestLogBackend.allCases)
    func everyFilterAndPagingAnswerWhatCheckingEachEntryWould(_ backend: RequestLogBackend) throws {
        let opened = try OpenRequestLogStore(backend)
        defer { withExtendedLifetime(opened) {} }
        let store = opened.store
        let written = RequestLogBlockTests.entries(600, start: Self.start)
        // In batches of varied size, appended one after another.
        var offset = 0
        for size in [1, 7, 250, 342] {
            _ = try store.append(Array(written[offset..<offset + size]), usage: [], forgetBefore: nil, forgetUsageBefore: nil)
            offset += size
        }
        let all = try store.entries(RequestLogFilter(limit: 10_000))
        #expect(all.map(\.requestID) == written.reversed().map(\.requestID))
        let filters = [
            RequestLogFilter(container: "iCloud.b", limit: 50),
            RequestLogFilter(container: "iCloud.a", environment: "production", limit: 70),
            RequestLogFilter(database: "", limit: 5_000), RequestLogFilter(database: "private", limit: 33),
            RequestLogFilter(operation: "zones/list", user: "_user3", limit: 40), RequestLogFilter(user: "_user9", limit: 10),
            RequestLogFilter(status: 503, limit: 30), RequestLogFilter(status: 200, limit: 1_000),
            RequestLogFilter(errorsOnly: true, limit: 25),
            RequestLogFilter(container: "iCloud.b", errorsOnly: true, from: Self.start + 5_000, to: Self.start + 15_000, limit: 500),
            RequestLogFilter(from: Self.start + 37 * 100, limit: 60), RequestLogFilter(to: Self.start + 37 * 100, limit: 60),
            RequestLogFilter(operation: "records/modify", before: all[300].id, limit: 20),
            RequestLogFilter(container: "iCloud.a", environment: "development", database: "public", operation: "records/query", limit: 3),
            RequestLogFilter(requestID: "request-12", limit: 5), RequestLogFilter(requestID: "request-123", limit: 1),
        ]
        for filter in filters {
            // Page through with `before`, as the console does.
            var pages: [RequestLogEntry] = []
            var page = filter
            while true {
                let next = try store.entries(page)
                pages += next
                guard next.count == page.limit, let last = next.last else { break }
                page.before = last.id
            }
            let expected = all.filter { entry in filter.matches(entry) && (filter.before.map { entry.id < $0 } ?? true) }
            #expect(!expected.isEmpty || filter.user == "_user9", "the filter selects something: \(filter)")
            #expect(pages.map(\.requestID) == expected.map(\.requestID), "\(filter)")
        }
        // A request id is matched whole: request-12 is neither request-1 nor request-123.
        #expect(try store.entries(RequestLogFilter(requestID: "request-12", limit: 5)).map(\.requestID) == ["request-12"])
        #expect(try store.entries(RequestLogFilter(requestID: "request-6000", limit: 5)).isEmpty)
        #expect(try store.entries(RequestLogFilter(limit: 5)).map(\.requestID) == all.prefix(5).map(\.requestID))
        #expect(try store.entries(RequestLogFilter(before: all[597].id)).map(\.requestID) == all.suffix(2).map(\.requestID))
    }

    @Test(arguments: RequestLogBackend.allCases)
    func entriesFromBeforeATimeAreForgotten(_ backend: RequestLogBackend) throws {
        let opened = try OpenRequestLogStore(backend)
        defer { withExtendedLifetime(opened) {} }
        let store = opened.store
        let hour: Int64 = 60 * 60_000
        let old = RequestLogBlockTests.entries(5, start: Self.start)
        let new = RequestLogBlockTests.entries(3, start: Self.start + hour).map { entry -> RequestLogEntry in
            var entry = entry
            entry.requestID = "new-" + entry.requestID
            return entry
        }
        let oldIDs = try store.append(old, usage: [], forgetBefore: nil, forgetUsageBefore: nil)
        let newIDs = try store.append(new, usage: [], forgetBefore: Self.start + hour / 2, forgetUsageBefore: nil)
        #expect(newIDs.min()! > oldIDs.max()!, "ids go on after forgotten ones")
        #expect(try store.entries(RequestLogFilter()).map(\.requestID) == new.reversed().map(\.requestID))
        // An empty batch still applies the retention.
        _ = try store.append([], usage: [], forgetBefore: Self.start + 2 * hour, forgetUsageBefore: nil)
        #expect(try store.entries(RequestLogFilter()).isEmpty)
    }

    // MARK: - Usage counters

    @Test(arguments: RequestLogBackend.allCases)
    func usageMinutesAddUpAndAreReadByRange(_ backend: RequestLogBackend) throws {
        let opened = try OpenRequestLogStore(backend)
        defer { withExtendedLifetime(opened) {} }
        let store = opened.store
        let minute = Self.start / 60_000
        try #require(
            try store.append(
                [],
                usage: [
                    Self.usage(
                        Self.development, minute: minute, requests: 3, errors: 1, bytesIn: 100, bytesOut: 1_000, durations: [50, 900, 900]),
                    Self.usage(
                        Self.development, minute: minute + 1, requests: 1, bytesIn: 10, bytesOut: 20, durations: [7], storageBytes: 5_000),
                    Self.usage(Self.production, minute: minute, requests: 2, bytesIn: 1, bytesOut: 2, durations: [1, 2]),
                ], forgetBefore: nil, forgetUsageBefore: nil
            ).isEmpty)
        // A later batch adds to the same minute; the storage measured first stays.
        _ = try store.append(
            [],
            usage: [
                Self.usage(
                    Self.development, minute: minute + 1, requests: 4, errors: 2, bytesIn: 5, bytesOut: 5,
                    durations: [7, 3_000_000, 40, 40],
                    storageBytes: 9_000),
                Self.usage(Self.development, minute: minute + 3, requests: 1, durations: [1], storageBytes: 7_000),
            ], forgetBefore: nil, forgetUsageBefore: nil)

        let minutes = try store.usageMinutes(Self.development, fromMinute: minute, toMinute: minute + 4)
        #expect(minutes.map(\.minute) == [minute, minute + 1, minute + 3])
        #expect(
            minutes[0]
                == Self.usage(
                    Self.development, minute: minute, requests: 3, errors: 1, bytesIn: 100, bytesOut: 1_000,
                    durations: [50, 900, 900]))
        #expect(
            minutes[1]
                == Self.usage(
                    Self.development, minute: minute + 1, requests: 5, errors: 2, bytesIn: 15, bytesOut: 25,
                    durations: [7, 7, 3_000_000, 40, 40], storageBytes: 5_000))
        #expect(
            try store.usageMinutes(Self.development, fromMinute: minute + 1, toMinute: minute + 3).map(\.minute) == [minute + 1],
            "the range's end is left out")
        #expect(try store.usageMinutes(Self.production, fromMinute: minute, toMinute: minute + 10).map(\.requests) == [2])
        #expect(
            try store.usageMinutes(UsageMeter.Key(container: "iCloud.b", environment: "development"), fromMinute: 0, toMinute: .max).isEmpty
        )

        #expect(try store.storageBytes(Self.development, before: minute + 1) == nil)
        #expect(try store.storageBytes(Self.development, before: minute + 2) == 5_000)
        #expect(try store.storageBytes(Self.development, before: minute + 10) == 7_000, "the latest minute that measured it")
        #expect(try store.storageBytes(Self.production, before: minute + 10) == nil)

        #expect(try store.transfer(Self.development, fromMinute: minute, toMinute: minute + 10) == 1_100 + 40)
        #expect(try store.transfer(Self.development, fromMinute: minute + 1, toMinute: minute + 2) == 40)
        #expect(try store.transfer(Self.development, fromMinute: minute + 4, toMinute: minute + 10) == 0)
        #expect(try store.transfer(Self.production, fromMinute: 0, toMinute: .max) == 3)
    }

    @Test(arguments: RequestLogBackend.allCases)
    func usageMinutesFromBeforeATimeAreForgotten(_ backend: RequestLogBackend) throws {
        let opened = try OpenRequestLogStore(backend)
        defer { withExtendedLifetime(opened) {} }
        let store = opened.store
        let minute = Self.start / 60_000
        _ = try store.append(
            [], usage: (0..<5).map { Self.usage(Self.development, minute: minute + $0, requests: 1, bytesIn: 1) },
            forgetBefore: nil, forgetUsageBefore: nil)
        // Forgotten by the minute a time falls in: a time within minute + 2 keeps that minute.
        _ = try store.append([], usage: [], forgetBefore: nil, forgetUsageBefore: (minute + 2) * 60_000 + 30_000)
        #expect(
            try store.usageMinutes(Self.development, fromMinute: 0, toMinute: .max).map(\.minute) == [minute + 2, minute + 3, minute + 4])
        #expect(try store.transfer(Self.development, fromMinute: 0, toMinute: .max) == 3)
    }

    @Test(arguments: RequestLogBackend.allCases)
    func aRequestLogOnTheStoreLogsAndCountsEndToEnd(_ backend: RequestLogBackend) throws {
        let opened = try OpenRequestLogStore(backend)
        defer { withExtendedLifetime(opened) {} }
        let clock = TestClock()
        let log = RequestLog(storage: opened.store, retention: 7 * 24 * 60 * 60_000, clock: { clock.tick() })
        let heard = HeardEntries()
        let cancel = log.listen { heard.add($0) }
        defer { cancel() }
        let base = clock.tick()
        for index in 0..<10 {
            log.record(
                RequestLogTests.entry(
                    index, time: base + 1_000 * Int64(index), status: index == 3 ? 400 : 200,
                    user: index < 4 ? "_alice" : nil, operation: index == 5 ? "zones/list" : "records/query"))
        }
        try log.flush()
        let stored = try log.entries(RequestLogFilter())
        #expect(stored.map(\.requestID) == (0..<10).reversed().map { "r\($0)" })
        #expect(heard.entries.map(\.id) == stored.reversed().map(\.id), "listeners hear the ids the entries were stored with")
        #expect(try log.entries(RequestLogFilter(user: "_alice")).map(\.requestID) == ["r3", "r2", "r1", "r0"])
        #expect(
            try log.entries(RequestLogFilter(environment: "production", from: base + 2_000, to: base + 7_000)).map(\.requestID) == [
                "r5", "r3",
            ])
        let container = try ContainerIdentifier("iCloud.com.example.A")
        let usage = try log.usageMinutes(container, .development, fromMinute: base / 60_000, toMinute: base / 60_000 + 2)
        #expect(usage.minutes.reduce(0) { $0 + $1.requests } == 5)
        #expect(try log.transferThisMonth(container, .development) == 5 * 30)
        #expect(try log.transferThisMonth(container, .production) == 5 * 30)
    }

    // MARK: - Several processes (PostgreSQL)

    @Test func usageOfTwoProcessesForTheSameMinuteAddsUp() throws {
        let database = try TestPostgres.makeDatabase()
        defer { withExtendedLifetime(database) {} }
        let first = try PostgresRequestLogStore(url: database.url)
        let second = try PostgresRequestLogStore(url: database.url)
        let minute = Self.start / 60_000
        _ = try first.append(
            [],
            usage: [
                Self.usage(
                    Self.development, minute: minute, requests: 3, errors: 1, bytesIn: 10, bytesOut: 100, durations: [5, 5, 80],
                    storageBytes: 1_000)
            ], forgetBefore: nil, forgetUsageBefore: nil)
        _ = try second.append(
            [],
            usage: [
                Self.usage(
                    Self.development, minute: minute, requests: 2, errors: 2, bytesIn: 1, bytesOut: 1, durations: [5, 90_000],
                    storageBytes: 1_200),
                Self.usage(Self.production, minute: minute, requests: 1, bytesIn: 7),
            ], forgetBefore: nil, forgetUsageBefore: nil)
        let expected = Self.usage(
            Self.development, minute: minute, requests: 5, errors: 3, bytesIn: 11, bytesOut: 101,
            durations: [5, 5, 80, 5, 90_000], storageBytes: 1_000)
        #expect(try first.usageMinutes(Self.development, fromMinute: minute, toMinute: minute + 1) == [expected])
        #expect(try second.usageMinutes(Self.development, fromMinute: minute, toMinute: minute + 1) == [expected])
        #expect(try first.transfer(Self.development, fromMinute: minute, toMinute: minute + 1) == 112, "each process sees both's traffic")
        #expect(try first.transfer(Self.production, fromMinute: minute, toMinute: minute + 1) == 7)
    }

    @Test func processesWritingAtOnceAddEveryCountAndGetUniqueOrderedIDs() throws {
        let database = try TestPostgres.makeDatabase()
        defer { withExtendedLifetime(database) {} }
        let stores = [try PostgresRequestLogStore(url: database.url), try PostgresRequestLogStore(url: database.url)]
        let minute = Self.start / 60_000
        let batches = 20
        let perBatch = 50
        let ids = Mutex<[[Int64]]>([[], []])
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { process in
            for batch in 0..<batches {
                let entries = RequestLogBlockTests.entries(perBatch, start: Self.start + Int64(batch) * 10_000).map {
                    entry -> RequestLogEntry in
                    var entry = entry
                    entry.requestID = "p\(process)-b\(batch)-\(entry.requestID)"
                    return entry
                }
                do {
                    let given = try stores[process].append(
                        entries,
                        usage: [
                            Self.usage(Self.development, minute: minute, requests: Int64(perBatch), bytesIn: 1, durations: [100]),
                            Self.usage(Self.production, minute: minute + Int64(batch % 2), requests: 1, bytesOut: 2),
                        ], forgetBefore: nil, forgetUsageBefore: nil)
                    ids.withLock { $0[process] += given }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let given = ids.withLock { $0 }
        let total = 2 * batches * perBatch
        #expect(Set(given[0] + given[1]).count == total, "no id is given twice")
        #expect(given[0] == given[0].sorted() && given[1] == given[1].sorted(), "each process's ids grow with its calls")
        let stored = try stores[0].entries(RequestLogFilter(limit: 10_000))
        #expect(stored.count == total)
        #expect(stored.map(\.id) == stored.map(\.id).sorted(by: >))
        // Each process's calls are read back in the order it logged them.
        for process in 0..<2 {
            let own = stored.reversed().filter { $0.requestID.hasPrefix("p\(process)-") }.map(\.requestID)
            let logged = (0..<batches).flatMap { batch in (0..<perBatch).map { "p\(process)-b\(batch)-request-\($0)" } }
            #expect(own == logged)
        }
        let development = try stores[1].usageMinutes(Self.development, fromMinute: minute, toMinute: minute + 1)
        #expect(development.map(\.requests) == [Int64(total)])
        #expect(development.first?.latency.total == Int64(2 * batches))
        #expect(try stores[1].usageMinutes(Self.production, fromMinute: minute, toMinute: minute + 2).map(\.requests) == [20, 20])
        #expect(try stores[0].transfer(Self.production, fromMinute: 0, toMinute: .max) == Int64(2 * batches * 2))
    }

    @Test func requestLogsOfTwoProcessesSeeEachOthersCallsAndTraffic() throws {
        let database = try TestPostgres.makeDatabase()
        defer { withExtendedLifetime(database) {} }
        let clock = TestClock()
        let logs = try (0..<2).map { _ in
            RequestLog(storage: try PostgresRequestLogStore(url: database.url), retention: 7 * 24 * 60 * 60_000, clock: { clock.tick() })
        }
        let base = clock.tick()
        for index in 0..<6 { logs[index / 3].record(RequestLogTests.entry(index, time: base + Int64(index))) }
        try logs[0].flush()
        try logs[1].flush()
        for log in logs {
            #expect(Set(try log.entries(RequestLogFilter()).map(\.requestID)) == Set((0..<6).map { "r\($0)" }))
        }
        let container = try ContainerIdentifier("iCloud.com.example.A")
        let usage = try logs[0].usageMinutes(container, .development, fromMinute: base / 60_000, toMinute: base / 60_000 + 1)
        #expect(usage.minutes.map(\.requests) == [3], "calls 0, 2 and 4, logged by both processes")
        // A third process, starting now, counts every process's transfer against the quota.
        let third = RequestLog(
            storage: try PostgresRequestLogStore(url: database.url), retention: 7 * 24 * 60 * 60_000, clock: { clock.tick() })
        #expect(try third.transferThisMonth(container, .development) == 3 * 30)
        #expect(try third.transferThisMonth(container, .production) == 3 * 30)
    }

    @Test func theTransferQuotaSeesOtherProcessesTrafficOnceItsReadingAges() throws {
        let database = try TestPostgres.makeDatabase()
        defer { withExtendedLifetime(database) {} }
        let clock = TestClock()
        let logs = try (0..<2).map { _ in
            RequestLog(
                storage: try PostgresRequestLogStore(url: database.url), retention: 7 * 24 * 60 * 60_000,
                transferLifetime: .milliseconds(300),
                clock: { clock.tick() })
        }
        let container = try ContainerIdentifier("iCloud.com.example.A")
        logs[0].record(RequestLogTests.entry(0, time: clock.tick()))
        try logs[0].flush()
        #expect(try logs[0].transferThisMonth(container, .development) == 30)
        logs[1].record(RequestLogTests.entry(2, time: clock.tick()))
        logs[1].record(RequestLogTests.entry(4, time: clock.tick()))
        try logs[1].flush()
        #expect(try logs[0].transferThisMonth(container, .development) == 30, "trusted while young")
        Thread.sleep(forTimeInterval: 0.4)
        // The aged reading is answered once more while it is read again off the request path.
        #expect(try logs[0].transferThisMonth(container, .development) == 30)
        try logs[0].flush()
        #expect(try logs[0].transferThisMonth(container, .development) == 90)
        // This process's own calls go on adding to what was read.
        logs[0].record(RequestLogTests.entry(6, time: clock.tick()))
        try logs[0].flush()
        #expect(try logs[0].transferThisMonth(container, .development) == 120)
    }
}

/// What a listener heard, in order.
private final class HeardEntries: Sendable {
    private let heard = Mutex<[RequestLogEntry]>([])

    var entries: [RequestLogEntry] { heard.withLock { $0 } }

    /// Keeps `entry`; always listens on.
    func add(_ entry: RequestLogEntry) -> Bool {
        heard.withLock { $0.append(entry) }
        return true
    }
}
