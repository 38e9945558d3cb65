import Synchronization
import TestSupport
import Testing

@testable import CloudStore

/// The request log's bounds besides its age: its size, sampled reads, a full disk; and the audit
/// trail's retention of its own. On both backends, but for the full disk (SQLite's page limit).
@Suite struct RequestLogBoundsTests {
    static let container = "iCloud.com.example.A"

    static func entry(_ index: Int, time: Int64, status: Int = 200, operation: String = "records/query") -> RequestLogEntry {
        RequestLogEntry(
            time: time, container: container, environment: "development", database: "public", operation: operation, user: "_u\(index % 97)",
            clientAddress: "127.0.0.\(index % 251)", status: status, serverErrorCode: status >= 400 ? "BAD_REQUEST" : nil,
            durationMicroseconds: Int64(100 + index * 7 % 1_000), bytesIn: Int64(index % 500), bytesOut: Int64(index * 13 % 9_000),
            requestID: "r\(index)")
    }

    /// Writes `batches` batches of `size` calls, checking after each that the log is within
    /// `maximum` once measured: the log is measured at most once a second (a batch written by
    /// the timer meanwhile may pass the maximum until then), so the clock moves on a second and
    /// one call more is written, which measures it.
    static func fill(_ store: TemporaryStore, batches: Int, size: Int, maximum: Int64) throws -> Int {
        let log = store.store.requestLog
        var index = 0
        for _ in 0..<batches {
            for _ in 0..<size {
                log.record(entry(index, time: store.clock.tick()))
                index += 1
            }
            try log.flush()
            store.clock.advance(by: RequestLogLimits.sizeCheckInterval)
            log.record(entry(index, time: store.clock.tick()))
            index += 1
            try log.flush()
            let stored = try log.openedStorage().storedBytes()
            #expect(stored <= maximum, "the log holds \(stored) bytes, past its \(maximum)")
        }
        return index
    }

    @Test func theSizeBoundHoldsUnderManyWritesAndTheOldestGoFirst() throws {
        // PostgreSQL's rows weigh some 250 bytes to SQLite's 35 in blocks: the bound is set so
        // that both forget many batches.
        let maximum: Int64 = TestBackend.isSQLite ? 192 << 10 : 1 << 20
        let store = try TemporaryStore { $0.requestLogMaximumBytes = maximum }
        let written = try Self.fill(store, batches: 40, size: 500, maximum: maximum)
        let kept = try store.store.requestLog.entries(RequestLogFilter(limit: 10_000))
        let ids = kept.map { Int($0.requestID.dropFirst())! }
        #expect(ids.first == written - 1, "the newest call is kept")
        #expect(ids.count < written / 2, "the oldest were forgotten: \(ids.count) of \(written) kept")
        #expect(ids == Array((written - ids.count..<written).reversed()), "what is kept is the newest calls, none missing among them")
        #expect(Int64(ids.count) * 20 > maximum / 10 / (TestBackend.isSQLite ? 1 : 8), "the log was not emptied: \(ids.count) kept")
    }

    @Test func successfulReadsPastTheRateAreLeftOutButCountedInTheUsage() throws {
        let store = try TemporaryStore { $0.requestLogSampledReadsPerSecond = 3 }
        let log = store.store.requestLog
        store.clock.advance(by: 1_000 - store.clock.tick() % 1_000)
        let second = store.clock.tick()
        for index in 0..<10 { log.record(Self.entry(index, time: second)) }
        log.record(Self.entry(10, time: second, operation: "records/modify"))
        log.record(Self.entry(11, time: second, status: 400))
        log.record(Self.entry(12, time: second + 1_000))
        try log.flush()
        #expect(try log.entries(RequestLogFilter()).map(\.requestID) == ["r12", "r11", "r10", "r2", "r1", "r0"])
        #expect(log.sampledOutCount == 7)
        let minute = second / 60_000
        let usage = try log.usageMinutes(
            ContainerIdentifier(Self.container), .development, fromMinute: minute - 1, toMinute: minute + 2)
        #expect(usage.minutes.reduce(0) { $0 + $1.requests } == 13, "every call counts in the usage, sampled out or not")
    }

    @Test func theAuditTrailOutlivesTheRequestLogAndExpiresAtItsOwnRetention() throws {
        let maximum: Int64 = TestBackend.isSQLite ? 128 << 10 : 1 << 20
        let store = try TemporaryStore { $0.requestLogMaximumBytes = maximum }
        try store.store.recordAudit(
            actor: "alice", operatorName: "alice", container: nil, environment: nil, action: "token.create", target: "kept")
        _ = try Self.fill(store, batches: 30, size: 500, maximum: maximum)
        store.clock.advance(by: store.store.configuration.requestLogRetention + 61_000)
        store.store.requestLog.record(Self.entry(0, time: store.clock.tick()))
        try store.store.requestLog.flush()
        #expect(try store.store.requestLog.entries(RequestLogFilter()).map(\.requestID) == ["r0"], "the request log forgot by age")
        #expect(try store.store.auditEntries(AuditFilter()).map(\.target) == ["kept"], "the audit trail did not")
        #expect(store.store.configuration.auditRetention == 400 * 24 * 60 * 60 * 1000)
        store.clock.advance(by: store.store.configuration.auditRetention)
        try store.store.recordAudit(
            actor: "alice", operatorName: "alice", container: nil, environment: nil, action: "token.create", target: "new")
        #expect(try store.store.auditEntries(AuditFilter()).map(\.target) == ["new"], "past its own retention it expires")
    }

    @Test(.enabled(if: TestBackend.isSQLite, "a full disk is made real by SQLite's page limit"))
    func aFullDiskLeavesBatchesOutWarnsOnceAndRecovers() throws {
        let warnings = Mutex<[String]>([])
        let store = try TemporaryStore { configuration in
            configuration.requestLogWarning = { message in warnings.withLock { $0.append(message) } }
        }
        let log = store.store.requestLog
        log.record(Self.entry(0, time: store.clock.tick()))
        try log.flush()
        let storage = try #require(try log.openedStorage() as? SQLiteRequestLogStore)
        let pages = try storage.storedBytes() / 4096
        try storage.limitPages(pages + 1)
        var index = 1
        for _ in 0..<3 {
            for _ in 0..<2_000 {
                log.record(Self.entry(index, time: store.clock.tick()))
                index += 1
            }
            try log.flush()
        }
        #expect(log.unwrittenCount > 0, "the full file left batches out")
        #expect(warnings.withLock { $0.count } == 1, "one warning a minute: \(warnings.withLock { $0 })")
        #expect(warnings.withLock { $0.first ?? "" }.contains("full"))
        // The API's own storage answers meanwhile.
        let record = try store.database().create("Note", "while-full", ["title": .string("written")])
        #expect(record.recordName == "while-full")
        let unwritten = log.unwrittenCount
        try storage.limitPages(nil)
        log.record(Self.entry(index, time: store.clock.tick()))
        try log.flush()
        #expect(log.unwrittenCount == unwritten, "nothing more left out once there is room")
        #expect(try log.entries(RequestLogFilter(limit: 1)).map(\.requestID) == ["r\(index)"])
        #expect(try log.entries(RequestLogFilter(requestID: "r0")).count == 1, "what was written before stays")
    }
}
