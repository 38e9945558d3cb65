import Foundation
import HTTPServer
import TestSupport
import Testing

/// The server's request counters, over real sockets: every answer is counted under its route's
/// operation and status class, the latency histogram holds each request once, and refusals at
/// the connection caps are counted.
@Suite struct MetricsTests {
    private static let found = RouteOperation(api: "test", name: "found")
    private static let missing = RouteOperation(api: "test", name: "missing")

    private func server(_ metrics: HTTPMetrics, configure: (inout HTTPServerConfiguration) -> Void = { _ in }) throws -> TestServer {
        try TestServer.start(configure: configure) { router in
            router.metrics = metrics
            router.get("/found", options: RouteOptions(operation: Self.found)) { _ in .text("ok") }
            // The same operation on two routes counts as one.
            router.get("/found-too", options: RouteOptions(runsOnEventLoop: true, operation: Self.found)) { _ in .text("ok") }
            router.get("/missing", options: RouteOptions(operation: Self.missing)) { _ in .error(.notFound) }
            router.post("/failing", options: RouteOptions(operation: Self.missing)) { _ in throw TestFailure() }
            router.get("/unnamed") { _ in .text("ok") }
        }
    }

    private struct TestFailure: Error {}

    private func counts(_ snapshot: HTTPMetricsSnapshot, _ operation: RouteOperation) -> HTTPMetricsSnapshot.Operation? {
        snapshot.operations.first { $0.operation == operation }
    }

    @Test func countsEveryAnswerByOperationAndStatusClass() throws {
        let metrics = HTTPMetrics()
        let test = try server(metrics)
        defer { test.stop() }
        let before = metrics.snapshot()
        #expect(before.operations.map(\.operation) == [.other, Self.found, Self.missing], "one row per operation, other first")
        #expect(before.operations.allSatisfy { $0.count == 0 })

        for _ in 0..<3 { #expect(try test.request(get("/found")).status == 200) }
        #expect(try test.request(get("/found-too")).status == 200)
        for _ in 0..<2 { #expect(try test.request(get("/missing")).status == 404) }
        #expect(try test.request("POST /failing HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n").status == 500)
        #expect(try test.request(get("/unnamed")).status == 200)
        #expect(try test.request(get("/nowhere")).status == 404)
        // Several requests on one keep-alive connection are each counted.
        let client = try test.client()
        defer { client.close() }
        for _ in 0..<2 {
            try client.send(get("/found"))
            #expect(try client.readResponse().status == 200)
        }

        let after = metrics.snapshot()
        let found = try #require(counts(after, Self.found))
        #expect(found.responsesByStatusClass == [0, 6, 0, 0, 0])
        let missing = try #require(counts(after, Self.missing))
        #expect(missing.responsesByStatusClass == [0, 0, 0, 2, 1])
        let other = try #require(counts(after, .other))
        #expect(other.responsesByStatusClass == [0, 1, 0, 1, 0], "the unnamed route and the unmatched path")
    }

    @Test func theLatencyHistogramHoldsEachRequestOnce() throws {
        let metrics = HTTPMetrics()
        let test = try server(metrics)
        defer { test.stop() }
        for _ in 0..<7 { _ = try test.request(get("/found")) }
        let found = try #require(counts(metrics.snapshot(), Self.found))
        #expect(found.count == 7)
        #expect(found.latencyBuckets.count == HTTPMetrics.latencyBounds.count)
        // Cumulative, and every request within the last bound (a minute).
        #expect(zip(found.latencyBuckets, found.latencyBuckets.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(found.latencyBuckets.last == 7)
        #expect(found.latencySeconds > 0)
    }

    @Test func refusalsAtTheConnectionCapsAndOpenConnectionsAreCounted() throws {
        let metrics = HTTPMetrics()
        let test = try server(metrics) { $0.maxConnectionsPerClient = 2 }
        defer { test.stop() }
        var held: [RawClient] = []
        for _ in 0..<2 {
            let client = try test.client()
            try client.send(get("/found"))
            #expect(try client.readResponse().status == 200)
            held.append(client)
        }
        #expect(metrics.snapshot().openConnections == 2)
        let extra = try test.client()
        #expect(try extra.readResponse().status == 503)
        #expect(extra.waitForClose())
        let snapshot = metrics.snapshot()
        #expect(snapshot.connectionsRefusedAtClientCap == 1)
        #expect(snapshot.connectionsRefusedAtServerCap == 0)
        #expect(counts(snapshot, Self.found)?.count == 2, "a refused connection is no request")
        for client in held { client.close() }
    }
}
