import Foundation
import Glibc
import HTTPServer
import TestSupport
import Testing

@Suite struct LimitsTests {
    private func echoServer(_ configure: (inout HTTPServerConfiguration) -> Void = { _ in }) throws -> TestServer {
        try TestServer.start(configure: configure) { router in
            router.post("/echo") { request in .text("\(request.body.count)") }
            router.post("/upload", options: RouteOptions(maxBodyBytes: 2048)) { request in .text("\(request.body.count)") }
            router.get("/ok") { _ in .text("ok") }
        }
    }

    @Test func rejectsOversizedHeadersWith431() throws {
        let test = try echoServer { $0.maxHeaderBytes = 1024 }
        defer { test.stop() }
        let client = try test.client()
        try client.send(get("/ok", headers: "X-Big: \(String(repeating: "a", count: 2000))\r\n"))
        #expect(try client.readResponse().status == 431)
        #expect(client.waitForClose())
        // Just under the limit is fine.
        #expect(try test.request(get("/ok", headers: "X-Big: \(String(repeating: "a", count: 900))\r\n")).status == 200)
    }

    @Test func rejectsOversizedBodiesWith413() throws {
        let test = try echoServer { $0.maxBodyBytes = 4096 }
        defer { test.stop() }
        // Declared too large: answered before the body is read.
        let client = try test.client()
        try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5000\r\n\r\n")
        #expect(try client.readResponse().status == 413)
        #expect(client.waitForClose())
        // Chunked, growing past the limit.
        let chunked = try test.client()
        try chunked.send("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n")
        for _ in 0..<5 { try chunked.send("400\r\n" + String(repeating: "x", count: 1024) + "\r\n") }
        #expect(try chunked.readResponse().status == 413)
        #expect(chunked.waitForClose())
        // At the limit is fine.
        let exact = try test.request("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 4096\r\n\r\n" + String(repeating: "y", count: 4096))
        #expect(exact.text == "4096")
    }

    @Test func appliesPerRouteBodyLimits() throws {
        let test = try echoServer { $0.maxBodyBytes = 1_000_000 }
        defer { test.stop() }
        let small = try test.request(
            "POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 3000\r\n\r\n" + String(repeating: "z", count: 3000))
        #expect(small.status == 413)
        let other = try test.request("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3000\r\n\r\n" + String(repeating: "z", count: 3000))
        #expect(other.text == "3000")
    }

    @Test func closesConnectionsThatDoNotFinishTheirHead() throws {
        let test = try echoServer { $0.headerReadTimeout = .milliseconds(300) }
        defer { test.stop() }
        let partial = try test.client(timeout: 5)
        try partial.send("GET /ok HTTP/1.1\r\nHost: t\r\n")
        let response = try partial.readResponse()
        #expect(response.status == 408)
        #expect(partial.waitForClose())
        // A connection that never sends anything is closed silently.
        let silent = try test.client(timeout: 5)
        #expect(silent.waitForClose())
        #expect(silent.pending.isEmpty)
    }

    @Test func closesIdleKeepAliveConnections() throws {
        let test = try echoServer { $0.idleTimeout = .milliseconds(300) }
        defer { test.stop() }
        let client = try test.client(timeout: 5)
        try client.send(get("/ok"))
        #expect(try client.readResponse().status == 200)
        #expect(client.waitForClose())
    }

    @Test func closesConnectionsWhoseBodyStalls() throws {
        let test = try echoServer { $0.bodyReadTimeout = .milliseconds(300) }
        defer { test.stop() }
        let client = try test.client(timeout: 5)
        try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nabc")
        #expect(try client.readResponse().status == 408)
        #expect(client.waitForClose())
    }

    @Test func refusesConnectionsOverTheCapAndStaysUp() throws {
        let test = try echoServer { $0.maxConnections = 10 }
        defer { test.stop() }
        var held: [RawClient] = []
        for _ in 0..<10 {
            let client = try test.client()
            try client.send(get("/ok"))
            #expect(try client.readResponse().status == 200)
            held.append(client)
        }
        let extra = try test.client()
        let refused = try extra.readResponse()
        #expect(refused.status == 503)
        #expect(extra.waitForClose())
        // Closing one frees a slot and the server answers again.
        held.removeLast().close()
        var answered = false
        for _ in 0..<50 where !answered {
            usleep(20_000)
            if let response = try? test.request(get("/ok")), response.status == 200 { answered = true }
        }
        #expect(answered)
        for client in held {
            try client.send(get("/ok"))
            #expect(try client.readResponse().status == 200)
        }
    }
}

@Suite struct StrictParsingTests {
    static let cases: [(String, Int)] = [
        (
            "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /ok HTTP/1.1\r\nHost: t\r\n\r\n",
            400
        ),
        ("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", 400),
        ("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n", 400),
        ("GET /ok HTTP/1.1\r\nHost: t\r\nX-Folded: a\r\n  b\r\n\r\n", 400),
        ("GET /ok HTTP/1.1\r\nHost: t\r\nX-Bare: a\rb\r\n\r\n", 400),
        ("GET /ok HTTP/1.1\nHost: t\n\n", 400),
        ("G(T /ok HTTP/1.1\r\nHost: t\r\n\r\n", 400),
        ("GET /ok HTTP/9.9\r\nHost: t\r\n\r\n", 400),
        ("GET /ok HTTX/1.1\r\nHost: t\r\n\r\n", 400),
        ("GET /ok HTTP/1.1\r\n\r\n", 400),
        ("GET /o\0k HTTP/1.1\r\nHost: t\r\n\r\n", 400),
        ("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501),
        ("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: xchunked\r\n\r\n", 400),
    ]

    @Test(arguments: 0..<StrictParsingTests.cases.count)
    func rejectsAndCloses(index: Int) throws {
        let (request, status) = StrictParsingTests.cases[index]
        let test = try TestServer.start { router in
            router.post("/echo") { request in .text(request.bodyText) }
            router.get("/ok") { _ in .text("ok") }
        }
        defer { test.stop() }
        let client = try test.client()
        try client.send(request)
        let response = try client.readResponse()
        #expect(response.status == status)
        #expect(response.header("Connection") == "close")
        // Nothing after the error is answered: the smuggled request never reaches a handler.
        #expect(client.waitForClose())
        #expect(client.pending.isEmpty)
    }
}
