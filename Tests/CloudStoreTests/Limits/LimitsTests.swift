import TestSupport
import Testing

@testable import CloudStore

@Suite struct LimitsTests {
    @Test func anEnvironmentHasTheStandardLimitsUntilAnOperatorSetsOthers() throws {
        let store = try TemporaryStore()
        #expect(try store.store.limits(of: store.container, .development) == .standard)
        try store.store.setLimits(.cloudKit, of: store.container, .production)
        #expect(try store.store.limits(of: store.container, .production) == .cloudKit)
        #expect(try store.store.limits(of: store.container, .production).presetName == "cloudkit")
        #expect(try store.store.limits(of: store.container, .development) == .standard, "each environment has its own")
    }

    @Test func limitsThatCannotWorkAreRefused() throws {
        let store = try TemporaryStore()
        for bad in [
            EnvironmentLimits(requestsPerSecond: 0, burst: 1), EnvironmentLimits(requestsPerSecond: .infinity, burst: 1),
            EnvironmentLimits(requestsPerSecond: 1, burst: 0), EnvironmentLimits(requestsPerSecond: 1, burst: 1, storageBytes: -1),
            EnvironmentLimits(requestsPerSecond: 1, burst: 1, transferBytesPerMonth: -5),
        ] {
            #expect(throws: CloudStoreError.self) { try store.store.setLimits(bad, of: store.container, .development) }
        }
        #expect(throws: CloudStoreError.notFound("Container iCloud.com.example.None does not exist")) {
            try store.store.setLimits(.cloudKit, of: try ContainerIdentifier("iCloud.com.example.None"), .development)
        }
        #expect(try store.store.limits(of: store.container, .development) == .standard)
    }

    @Test func pastTheRateRequestsAreThrottledUntilTheBucketRefills() throws {
        let store = try TemporaryStore()
        // Alone on its files or its database, the process takes the whole rate.
        #expect(store.store.liveProcessCount == 1)
        try store.store.setLimits(EnvironmentLimits(requestsPerSecond: 2, burst: 3), of: store.container, .development)
        for _ in 0..<3 { try store.store.admitRequest(to: store.container, .development) }
        do {
            try store.store.admitRequest(to: store.container, .development)
            Issue.record("the fourth request in a burst of three was let in")
        } catch CloudStoreError.throttled(let reason, let retryAfter) {
            #expect(retryAfter == 1)
            #expect(reason.contains("allows 2 a second"))
        }
        // The other environment has a bucket of its own.
        try store.store.admitRequest(to: store.container, .production)
        store.clock.advance(by: 1_000)
        try store.store.admitRequest(to: store.container, .development)
        try store.store.admitRequest(to: store.container, .development)
        #expect(throws: CloudStoreError.self) { try store.store.admitRequest(to: store.container, .development) }
    }

    @Test func aWriteThatWouldPassTheStorageLimitWritesNothing() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        try database.create("Note", "first", ["title": .string("hello")])
        let held = try store.store.usage(of: store.container)[.development]?.recordBytes ?? 0
        try store.store.setLimits(
            EnvironmentLimits(requestsPerSecond: 100, burst: 100, storageBytes: held + 10), of: store.container, .development)
        let big = ModifyRequest(operations: [
            RecordOperation(.create, recordName: "second", recordType: "Note", fields: ["title": .string("small")]),
            RecordOperation(
                .create, recordName: "third", recordType: "Note", fields: ["title": .string(String(repeating: "x", count: 500))]),
        ])
        #expect(throws: CloudStoreError.self) { try database.modify(big) }
        #expect(
            try database.lookup([RecordLookup("second"), RecordLookup("third")]).allSatisfy { $0.record == nil },
            "a refused request writes nothing, not even its records that fit")
        #expect(try store.store.usage(of: store.container)[.development]?.recordBytes == held)
        // Freeing space is always allowed, and then a write that fits goes in: once the deleted
        // record's version leaves the trash, which counts in storage until its retention ends.
        _ = try database.modify(ModifyRequest(operations: [RecordOperation(.forceDelete, recordName: "first")]))
        #expect(throws: CloudStoreError.self) { try database.create("Note", "fourth", ["title": .string("fits")]) }
        store.clock.advance(by: store.store.configuration.historyRetention + 1)
        try store.store.forgetExpiredVersions()
        try database.create("Note", "fourth", ["title": .string("fits")])
    }

    @Test func pastTheMonthsTransferRequestsAreRefusedAndTheNextMonthStartsAgain() throws {
        let store = try TemporaryStore()
        try store.store.setLimits(
            EnvironmentLimits(requestsPerSecond: 100, burst: 100, transferBytesPerMonth: 1_000), of: store.container, .development)
        let log = store.store.requestLog
        try store.store.admitRequest(to: store.container, .development)
        log.record(Self.call(store, bytes: 999))
        try log.flush()
        try store.store.admitRequest(to: store.container, .development)
        log.record(Self.call(store, bytes: 1))
        try log.flush()
        #expect(try store.store.requestLog.transferThisMonth(store.container, .development) == 1_000)
        #expect(throws: CloudStoreError.self) { try store.store.admitRequest(to: store.container, .development) }
        try store.store.admitRequest(to: store.container, .production)
        // The test clock starts mid-November 2023; December starts afresh.
        store.clock.advance(by: 20 * 24 * 3_600_000)
        try store.store.admitRequest(to: store.container, .development)
    }

    static func call(_ store: TemporaryStore, bytes: Int64, status: Int = 200, micros: Int64 = 100, environment: String = "development")
        -> RequestLogEntry
    {
        RequestLogEntry(
            time: store.clock.tick(), container: store.container.rawValue, environment: environment, database: "public",
            operation: "records/query", user: nil, clientAddress: "127.0.0.1", status: status,
            serverErrorCode: status >= 400 ? "BAD_REQUEST" : nil,
            durationMicroseconds: micros, bytesIn: bytes / 2, bytesOut: bytes - bytes / 2, requestID: "r")
    }
}
