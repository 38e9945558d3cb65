import TestSupport
import Testing

@testable import CloudStore

@Suite struct UsageReportTests {
    @Test func aReportCountsCallsErrorsBytesAndLatencyPerBucket() throws {
        let store = try TemporaryStore()
        let log = store.store.requestLog
        // Align to a minute so the calls below fall in known buckets.
        store.clock.advance(by: 60_000 - store.clock.tick() % 60_000)
        for index in 0..<100 {
            log.record(LimitsTests.call(store, bytes: 10, status: index < 5 ? 400 : 200, micros: index < 98 ? 1_000 : 1_000_000))
        }
        store.clock.advance(by: 60_000)
        log.record(LimitsTests.call(store, bytes: 30, micros: 50))
        log.record(LimitsTests.call(store, bytes: 30, environment: "production"))
        try store.database().create("Note", "one", ["title": .string("stored")])
        let report = try store.store.usageReport(of: store.container, .development, range: .hour)
        #expect(report.points.count == 60)
        let last = report.points[59]
        let previous = report.points[58]
        #expect(previous.requests == 100)
        #expect(previous.errors == 5)
        #expect(previous.bytesIn + previous.bytesOut == 1_000)
        // Durations are kept to within a bucket about a fifth wide.
        #expect((900...1_100).contains(previous.p50Microseconds ?? 0))
        #expect((850_000...1_150_000).contains(previous.p99Microseconds ?? 0), "the 99th of 100 is one of the two 1 s calls")
        #expect(last.requests == 1)
        #expect(last.bytesIn + last.bytesOut == 30)
        #expect(report.points[0].requests == 0 && report.points[0].p50Microseconds == nil)
        #expect(last.storageBytes == report.stored.recordBytes && report.stored.recordBytes > 0)
        #expect(report.transferThisMonth == 1_030, "production's call is production's")
        let day = try store.store.usageReport(of: store.container, .development, range: .day)
        #expect(day.points.count == 96)
        #expect(day.points.reduce(0) { $0 + $1.requests } == 101)
        #expect(try store.store.usageReport(of: store.container, .development, range: .week).points.count == 168)
    }

    @Test func countersSurviveARestartWithinTheSameMinute() throws {
        let temporary = try TemporaryStore()
        temporary.store.requestLog.record(LimitsTests.call(temporary, bytes: 10))
        try temporary.store.requestLog.flush()
        let reopened = try CloudStore(configuration: temporary.store.configuration)
        reopened.requestLog.record(LimitsTests.call(temporary, bytes: 20))
        try reopened.requestLog.flush()
        let report = try reopened.usageReport(of: temporary.container, .development, range: .hour)
        #expect(report.points.reduce(0) { $0 + $1.requests } == 2)
        #expect(report.transferThisMonth == 30)
    }

    @Test func percentilesOfAHistogramFallInTheirBucket() {
        var histogram = LatencyHistogram()
        for micros in [Int64(0), 1, 10, 100, 1_000, 10_000, 100_000] { histogram.add(micros) }
        #expect((85...115).contains(histogram.percentile(0.5) ?? 0), "the fourth of seven is 100 µs")
        #expect(LatencyHistogram(encoded: histogram.encoded()) == histogram)
        #expect(LatencyHistogram(encoded: [200, 1, 3]).total == 0, "a damaged encoding reads as what could be read")
        #expect(LatencyHistogram().percentile(0.5) == nil)
    }
}
