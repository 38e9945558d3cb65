import Foundation
import Glibc
import HTTPServer
import Synchronization
import TestSupport
import Testing

@Suite struct LifecycleTests {
    @Test func shutdownLetsInFlightRequestsFinish() throws {
        let started = Atomic<Bool>(false)
        let test = try TestServer.start { router in
            router.get("/slow") { _ in
                started.store(true, ordering: .relaxed)
                usleep(500_000)
                return .text("finished")
            }
        }
        let client = try test.client()
        let idle = try test.client()
        try client.send(get("/slow"))
        while !started.load(ordering: .relaxed) { usleep(5_000) }
        let stopper = Thread { test.server.shutdown(gracePeriod: .seconds(5)) }
        stopper.start()
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.text == "finished")
        #expect(response.header("Connection") == "close")
        #expect(client.waitForClose())
        #expect(idle.waitForClose())
        test.server.wait()
        // The port no longer accepts connections.
        #expect(throws: (any Error).self) { try RawClient(port: test.port) }
    }

    @Test func answersWhileThousandsOfIdleConnectionsAreOpen() throws {
        // All from 127.0.0.1, so the per-client cap must allow them.
        let test = try TestServer.start(configure: { $0.maxConnectionsPerClient = 3000 }) { router in
            router.get("/ok") { _ in .text("ok") }
        }
        defer { test.stop() }
        var idle: [RawClient] = []
        for _ in 0..<2000 { idle.append(try test.client()) }
        // connect() returns once the kernel has queued the connection; wait until the server
        // has accepted all of them so that they really are open on the server's side. The wait
        // is long because a busy machine may take seconds to accept 2,000 connections.
        try waitUntil(timeout: 120, pollingEvery: 10_000) { test.server.openConnections >= 2000 }
        #expect(test.server.openConnections >= 2000)
        let begin = Date()
        let response = try test.request(get("/ok"))
        print("request with 2000 idle connections open answered in \(Int(Date().timeIntervalSince(begin) * 1_000_000)) µs")
        #expect(response.status == 200)
        #expect(response.text == "ok")
        // The idle ones still work too.
        try idle[1234].send(get("/ok"))
        #expect(try idle[1234].readResponse().text == "ok")
    }

    @Test func refusesToStartTwiceOnTheSamePort() throws {
        let test = try TestServer.start { router in
            router.get("/ok") { _ in .text("ok") }
        }
        defer { test.stop() }
        let other = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: test.port), router: Router(), logger: .init(label: "x"))
        #expect(throws: HTTPServerError.self) { try other.start() }
    }

    @Test func answers503WhenTheWorkerQueueIsFull() throws {
        let test = try TestServer.start(configure: {
            $0.workerCount = 1
            $0.workerQueueCapacity = 1
        }) { router in
            router.get("/block") { _ in
                usleep(400_000)
                return .text("done")
            }
        }
        defer { test.stop() }
        let clients = try (0..<4).map { _ in try test.client() }
        for client in clients {
            try client.send(get("/block"))
            usleep(20_000)
        }
        let statuses = try clients.map { try $0.readResponse().status }.sorted()
        #expect(statuses.contains(503))
        #expect(statuses.contains(200))
    }
}
