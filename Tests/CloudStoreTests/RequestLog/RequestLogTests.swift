import Synchronization
import TestSupport
import Testing

@testable import CloudStore

@Suite struct RequestLogTests {
    static func entry(_ index: Int, time: Int64, status: Int = 200, user: String? = nil, operation: String = "records/query")
        -> RequestLogEntry
    {
        RequestLogEntry(
            time: time, container: "iCloud.com.example.A", environment: index % 2 == 0 ? "development" : "production", database: "public",
            operation: operation, user: user, clientAddress: "127.0.0.1", status: status,
            serverErrorCode: status >= 400 ? "BAD_REQUEST" : nil,
            durationMicroseconds: Int64(100 + index), bytesIn: 10, bytesOut: 20, requestID: "r\(index)")
    }

    @Test func entriesAreWrittenOffThePathAndReadByEveryFilter() throws {
        let store = try TemporaryStore()
        let log = store.store.requestLog
        let heard = Mutex<[String]>([])
        let cancel = log.listen { entry in
            heard.withLock { $0.append(entry.requestID) }
            return true
        }
        let base = store.clock.tick()
        for index in 0..<10 {
            log.record(
                Self.entry(
                    index, time: base + 1_000 * Int64(index), status: index == 3 ? 400 : 200, user: index < 4 ? "_alice" : nil,
                    operation: index == 5 ? "zones/list" : "records/query"))
        }
        try log.flush()
        #expect(heard.withLock { $0 } == (0..<10).map { "r\($0)" })
        #expect(try log.entries(RequestLogFilter()).map(\.requestID) == (0..<10).reversed().map { "r\($0)" })
        #expect(try log.entries(RequestLogFilter(user: "_alice")).map(\.requestID) == ["r3", "r2", "r1", "r0"])
        #expect(try log.entries(RequestLogFilter(operation: "zones/list")).map(\.requestID) == ["r5"])
        #expect(try log.entries(RequestLogFilter(errorsOnly: true)).map(\.serverErrorCode) == ["BAD_REQUEST"])
        #expect(
            try log.entries(RequestLogFilter(environment: "production", from: base + 2_000, to: base + 7_000)).map(\.requestID) == [
                "r5", "r3",
            ])
        let page = try log.entries(RequestLogFilter(limit: 4))
        #expect(try log.entries(RequestLogFilter(before: page.last?.id, limit: 4)).map(\.requestID) == ["r5", "r4", "r3", "r2"])
        cancel()
        log.record(Self.entry(10, time: base + 10_000))
        try log.flush()
        #expect(heard.withLock { $0.count } == 10, "a cancelled listener hears nothing more")
    }

    @Test func entriesOlderThanTheRetentionAreForgotten() throws {
        let store = try TemporaryStore()
        let log = store.store.requestLog
        log.record(Self.entry(0, time: store.clock.tick()))
        try log.flush()
        store.clock.advance(by: store.store.configuration.requestLogRetention + 61_000)
        log.record(Self.entry(1, time: store.clock.tick()))
        try log.flush()
        #expect(try log.entries(RequestLogFilter()).map(\.requestID) == ["r1"])
    }
}
