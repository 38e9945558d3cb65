import Foundation
import Glibc
import HTTPServer
import Synchronization
import TestSupport
import Testing

/// What keeps clients from holding the server or reading its secrets: slow bodies cut off,
/// connections capped per client, credentials redacted from the log, the server's own errors
/// rendered as the application wants.
@Suite struct HardeningTests {
    @Test func aBodyTrickledByteByByteIsCutOffBeforeAnyHandlerRuns() throws {
        let calls = Atomic<Int>(0)
        let test = try TestServer.start(configure: {
            $0.bodyReadTimeout = .seconds(1)
            $0.minimumBodyBytesPerSecond = 1024
        }) { router in
            router.post("/echo") { request in
                calls.add(1, ordering: .relaxed)
                return .text("\(request.body.count)")
            }
        }
        defer { test.stop() }
        let slow = try test.client(timeout: 10)
        try slow.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n")
        let started = Date()
        var sent = 0
        // One byte every 200 ms would take 20 s; each read used to restart the timeout.
        while sent < 100, Date().timeIntervalSince(started) < 8 {
            guard (try? slow.send("x")) != nil else { break }
            sent += 1
            usleep(200_000)
            if Date().timeIntervalSince(started) > 1.5 { break }
        }
        let answer = try slow.readResponse()
        #expect(answer.status == 408)
        #expect(slow.waitForClose())
        #expect(sent < 100)
        #expect(calls.load(ordering: .relaxed) == 0)

        // A body at a fair rate arrives whole.
        let fair = try test.client(timeout: 10)
        try fair.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc")
        #expect(try fair.readResponse().text == "3")
        #expect(calls.load(ordering: .relaxed) == 1)
    }

    @Test func oneClientMayHoldOnlySoManyConnections() throws {
        let test = try TestServer.start(configure: { $0.maxConnectionsPerClient = 3 }) { router in
            router.get("/ok") { _ in .text("ok") }
        }
        defer { test.stop() }
        var held: [RawClient] = []
        for _ in 0..<3 {
            let client = try test.client()
            try client.send(get("/ok"))
            #expect(try client.readResponse().status == 200)
            held.append(client)
        }
        let extra = try test.client()
        #expect(try extra.readResponse().status == 503)
        #expect(extra.waitForClose())
        held.removeLast().close()
        var answered = false
        for _ in 0..<50 where !answered {
            usleep(20_000)
            if let response = try? test.request(get("/ok")), response.status == 200 { answered = true }
        }
        #expect(answered)
        #expect(test.log.all.contains { $0.contains("connection refused: 3 connections open from 127.0.0.1") })
    }

    @Test func credentialsInTheConfiguredPathSegmentsNeverReachTheLog() throws {
        let test = try TestServer.start(configure: { $0.redactedPathPrefixes = ["/files/"] }) { router in
            router.get("/files/:ticket/:name") { _ in .text("ok") }
        }
        defer { test.stop() }
        let secret = "s3cr3t-\(UUID().uuidString)"
        #expect(try test.request(get("/files/\(secret)/photo.jpg?type=x")).status == 200)
        usleep(100_000)
        let lines = test.log.all.filter { $0.contains("\"GET /files/") }
        #expect(lines.count == 1)
        #expect(lines.allSatisfy { !$0.contains(secret) })
        #expect(lines.first?.contains("/files/REDACTED/photo.jpg?type=x") == true)
    }

    @Test(arguments: ["ckAPIToken", "ckWebAuthToken", "ckSession", "tok", "CKAPITOKEN", "ck%41PIToken"])
    func credentialsInTheQueryNeverReachTheLog(_ name: String) throws {
        let test = try TestServer.start { router in
            router.get("/api") { _ in .text("ok") }
        }
        defer { test.stop() }
        let secret = "s3cr3t-\(UUID().uuidString)"
        #expect(try test.request(get("/api?a=1&\(name)=\(secret)&b=2")).status == 200)
        usleep(100_000)
        let lines = test.log.all.filter { $0.contains("\"GET /api?") }
        #expect(lines.count == 1)
        #expect(lines.allSatisfy { !$0.contains(secret) })
        #expect(lines.first?.contains("a=1&\(name)=REDACTED&b=2") == true)
    }

    @Test func theApplicationRendersTheServersOwnErrorsOnItsPaths() throws {
        let test = try TestServer.start(configure: {
            $0.maxBodyBytes = 64; $0.maxHeaderBytes = 512
        }) { router in
            router.post("/api/things") { _ in .text("ok") }
            router.post("/plain") { _ in .text("ok") }
            router.errorResponder = { error in
                guard error.rawPath?.hasPrefix("/api/") == true else { return nil }
                return .json(#"{"custom":\#(error.status.code),"id":"\#(error.requestID)"}"#, status: error.status)
            }
        }
        defer { test.stop() }
        let big = String(repeating: "x", count: 100)
        let tooLarge = try test.request("POST /api/things HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n\(big)")
        #expect(tooLarge.status == 413)
        #expect(tooLarge.text.hasPrefix(#"{"custom":413,"id":""#))
        let chunked = try test.request(
            "POST /api/things HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n64\r\n\(big)\r\n0\r\n\r\n")
        #expect(chunked.status == 413)
        #expect(chunked.text.hasPrefix(#"{"custom":413"#))
        let headers = try test.request("GET /api/things HTTP/1.1\r\nHost: t\r\nX-Big: \(String(repeating: "a", count: 600))\r\n\r\n")
        #expect(headers.status == 431)
        #expect(headers.text.hasPrefix(#"{"custom":431"#))
        let method = try test.request("GET /api/things HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(method.status == 405)
        #expect(method.header("Allow") == "OPTIONS, POST")
        #expect(method.text.hasPrefix(#"{"custom":405"#))
        // Elsewhere the server's own shape stays.
        let plain = try test.request("POST /plain HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n\(big)")
        #expect(plain.status == 413)
        #expect(plain.text.hasPrefix(#"{"status":413,"error":"#))
    }

    @Test func baseURLsTrustOnlyTheListenAddressAndAllowedHosts() {
        // Before, any plain Host went into links: `Host: evil.example` pointed them there.
        func base(_ host: String?, publicURL: String? = nil, allowed: [String] = [], listen: ListenAddress? = nil) -> String? {
            var headers = HTTPHeaders()
            if let host { headers["Host"] = host }
            var request = HTTPRequest(method: .get, target: "/", headers: headers)
            request.listenAddress = listen
            return request.baseURL(publicURL: publicURL, allowedHosts: allowed)
        }
        let loopback = ListenAddress(host: "127.0.0.1", port: 8080)
        #expect(base("evil.example", listen: loopback) == "http://127.0.0.1:8080")
        #expect(base("127.0.0.1:8080", listen: loopback) == "http://127.0.0.1:8080")
        #expect(base("LOCALHOST:8080", listen: loopback) == "http://LOCALHOST:8080")
        #expect(base("[::1]:8080", listen: loopback) == "http://[::1]:8080")
        #expect(base("localhost:9090", listen: loopback) == "http://127.0.0.1:8080", "another port")
        #expect(base("cloud.example.com", allowed: ["cloud.example.com"], listen: loopback) == "http://cloud.example.com")
        #expect(base("Cloud.Example.com", allowed: ["cloud.example.com"]) == "http://Cloud.Example.com")
        #expect(base("cloud.example.com:8443", allowed: ["cloud.example.com"], listen: loopback) == "http://127.0.0.1:8080")
        #expect(base("anything", publicURL: "https://cloud.example.com/", listen: loopback) == "https://cloud.example.com")
        let everywhere = ListenAddress(host: "0.0.0.0", port: 80)
        #expect(base("evil.example", listen: everywhere) == "http://127.0.0.1:80")
        #expect(base("localhost", listen: everywhere) == "http://localhost")
        let lan = ListenAddress(host: "192.0.2.7", port: 8080)
        #expect(base("localhost:8080", listen: lan) == "http://192.0.2.7:8080", "not on loopback")
        #expect(base("192.0.2.7:8080", listen: lan) == "http://192.0.2.7:8080")
        #expect(ListenAddress(host: "::1", port: 8080).url == "http://[::1]:8080")
        for bad in [
            "evil.example.com/path", "a b", "user@host", "host:port", "\"quoted\"", "host\r\nX: y", "", ":80", "[zz]:1", "h:123456",
        ] {
            #expect(base(bad, allowed: [bad.lowercased()], listen: loopback) == "http://127.0.0.1:8080", "\(bad)")
        }
        #expect(base(nil, listen: loopback) == "http://127.0.0.1:8080")
        #expect(base("evil.example") == nil, "made in process: no listen address")
        #expect(HTTPRequest.allowedHosts("Cloud.example.com, 10.0.0.5:8080") == ["cloud.example.com", "10.0.0.5:8080"])
        #expect(HTTPRequest.allowedHosts("a/b") == nil)
    }
}
