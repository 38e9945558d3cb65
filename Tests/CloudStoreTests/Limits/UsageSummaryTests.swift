import TestSupport
import Testing

@testable import CloudStore

@Suite struct UsageSummaryTests {
    /// A call of `operation` at the store's clock.
    static func call(_ store: TemporaryStore, _ operation: String, status: Int = 200, micros: Int64 = 1_000) -> RequestLogEntry {
        var entry = LimitsTests.call(store, bytes: 10, status: status, micros: micros)
        entry.operation = operation
        return entry
    }

    @Test func aSummaryTotalsTheRangeAndBreaksItDownByOperation() throws {
        let store = try TemporaryStore()
        let log = store.store.requestLog
        store.clock.advance(by: 60_000 - store.clock.tick() % 60_000)
        for _ in 0..<6 { log.record(Self.call(store, "records/query")) }
        log.record(Self.call(store, "records/query", status: 400))
        var partial = Self.call(store, "records/modify", micros: 5_000)
        partial.resultErrors = ["CONFLICT": 1]
        log.record(partial)
        log.record(Self.call(store, "records/modify", micros: 5_000))
        let summary = try store.store.usageSummary(of: store.container, .development, range: .hour)
        #expect(summary.totals.requests == 9 && summary.totals.errors == 1)
        #expect(summary.totals.bytesIn + summary.totals.bytesOut == 90)
        #expect(summary.peakPerSecond == 9, "the test clock moves a millisecond a call: all nine in one second")
        #expect(summary.callsRead == 9)
        #expect(summary.operations.map(\.operation) == ["records/query", "records/modify"])
        #expect(summary.operations.map(\.requests) == [7, 2])
        #expect(summary.operations.map(\.errors) == [1, 0])
        #expect(summary.operations.map(\.partialFailures) == [0, 1])
        #expect((4_000...6_000).contains(summary.operations[1].p50Microseconds ?? 0))
        #expect(summary.lastActivity != nil)
    }

    @Test func anEnvironmentWithoutCallsHasNoActivityAndNoFittingRange() throws {
        let store = try TemporaryStore()
        let summary = try store.store.usageSummary(of: store.container, .development, range: .day)
        #expect(summary.totals.requests == 0 && summary.lastActivity == nil && summary.operations.isEmpty && summary.peakPerSecond == nil)
        #expect(try store.store.fittingUsageRange(of: store.container, .development) == nil)
    }

    @Test func theFittingRangeIsTheShortestThatHoldsTheWeeksCalls() throws {
        let store = try TemporaryStore()
        let log = store.store.requestLog
        log.record(Self.call(store, "records/query"))
        try log.flush()
        #expect(try store.store.fittingUsageRange(of: store.container, .development) == .hour)
        store.clock.advance(by: 3 * 60 * 60_000)
        #expect(try store.store.fittingUsageRange(of: store.container, .development) == .day)
        store.clock.advance(by: 2 * 24 * 60 * 60_000)
        #expect(try store.store.fittingUsageRange(of: store.container, .development) == .week)
        #expect(try store.store.usageSummary(of: store.container, .development, range: .hour).totals.requests == 0)
        #expect(try store.store.usageSummary(of: store.container, .development, range: .hour).lastActivity != nil)
    }

    /// The Usage page's overview is the report, the summary and the fitting range each would
    /// give, from one read of the usage minutes instead of three.
    @Test func anOverviewIsTheReportAndTheSummaryFromOneRead() throws {
        let store = try TemporaryStore()
        let log = store.store.requestLog
        // At the start of a minute, so that the few milliseconds the calls below take cross no bucket.
        store.clock.advance(by: 60_000 - store.clock.tick() % 60_000)
        try store.database().create("Note", "one", ["title": .string("stored")])
        for _ in 0..<4 { log.record(Self.call(store, "records/query")) }
        log.record(Self.call(store, "records/lookup", status: 404))
        try log.flush()
        store.clock.advance(by: 3 * 60 * 60_000)
        log.record(Self.call(store, "records/query"))
        try log.flush()
        let reads = log.usageMinuteReadCount
        let fitted = try store.store.usageOverview(of: store.container, .development, range: nil)
        #expect(log.usageMinuteReadCount == reads + 1)
        #expect(fitted.range == .day, "the calls of three hours ago need a day")
        #expect(fitted.range == (try store.store.fittingUsageRange(of: store.container, .development)))
        #expect(fitted.report == (try store.store.usageReport(of: store.container, .development, range: .day)))
        #expect(fitted.summary == (try store.store.usageSummary(of: store.container, .development, range: .day)))
        #expect(fitted.summary.totals.requests == 6 && fitted.summary.totals.errors == 1)
        #expect(fitted.report.points.reduce(0) { $0 + $1.requests } == 6)
        for range in UsageRange.allCases {
            let overview = try store.store.usageOverview(of: store.container, .development, range: range)
            #expect(overview.range == range)
            #expect(overview.report == (try store.store.usageReport(of: store.container, .development, range: range)), "\(range)")
            #expect(overview.summary == (try store.store.usageSummary(of: store.container, .development, range: range)), "\(range)")
        }
        #expect(try store.store.usageOverview(of: store.container, .development, range: .hour).summary.totals.requests == 1)
        let quiet = try store.store.usageOverview(of: store.container, .production, range: nil)
        #expect(quiet.range == .day && quiet.summary.lastActivity == nil && quiet.summary.totals.requests == 0)
    }

    @Test func storageIsOneFigureForEnvironmentsAndZones() throws {
        let store = try TemporaryStore()
        try store.database().create("Note", "one", ["title": .string("stored")])
        let environment = try store.store.usage(of: store.container, .development)
        let zones = try store.store.zoneUsage(store.container, .development)
        #expect(environment.storageBytes > 0)
        #expect(environment.storageBytes == zones.reduce(0) { $0 + $1.storageBytes })
        #expect(environment.storageBytes == environment.recordBytes, "the database file is not storage")
    }
}
