import Foundation
import HTTPServer
import Logging
import Synchronization
import TestSupport
import Testing

@Suite struct ProtocolTests {
    @Test func keepsConnectionsAliveAndSendsRequestIDs() throws {
        let test = try TestServer.start { router in
            router.get("/hello") { _ in .text("hi") }
        }
        defer { test.stop() }
        let client = try test.client()
        for _ in 0..<3 {
            try client.send(get("/hello"))
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "hi")
            #expect(response.header("Content-Type") == "text/plain; charset=utf-8")
            #expect(response.header("Date") != nil)
            #expect(response.header("X-Request-Id")?.isEmpty == false)
            #expect(response.header("Connection") == nil)
        }
        try client.send(get("/hello", headers: "X-Request-Id: abc-123\r\n"))
        #expect(try client.readResponse().header("X-Request-Id") == "abc-123")
        try client.send(get("/hello", headers: "Connection: close\r\n"))
        let last = try client.readResponse()
        #expect(last.header("Connection") == "close")
        #expect(client.waitForClose())
    }

    @Test func answersPipelinedRequestsInOrderEvenWhenTheFirstIsSlow() throws {
        let test = try TestServer.start { router in
            router.get("/slow") { _ in
                usleep(300_000)
                return .text("slow")
            }
            router.get("/fast/:n") { request in .text("fast \(request.pathParameters["n"]!)") }
            router.get("/inline", options: .onEventLoop) { _ in .text("inline") }
        }
        defer { test.stop() }
        let client = try test.client()
        try client.send(get("/slow") + get("/fast/1") + get("/inline") + get("/fast/2"))
        let bodies = try (0..<4).map { _ in try client.readResponse().text }
        #expect(bodies == ["slow", "fast 1", "inline", "fast 2"])
    }

    @Test func smallBodiesRunOnTheLoopAndLargerOnesOnAWorker() throws {
        let test = try TestServer.start { router in
            router.post("/where", options: RouteOptions(eventLoopBodyLimit: 4)) { _ in .text(HTTPServer.isOnEventLoop ? "loop" : "worker") }
        }
        defer { test.stop() }
        let client = try test.client()
        for body in ["", "abc", "abcd", "abcde", "abcdefghijklmnop", "ab"] {
            try client.send("POST /where HTTP/1.1\r\nHost: t\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            let thread = try client.readResponse().text
            #expect(thread == (body.utf8.count <= 4 ? "loop" : "worker"), "a body of \(body.utf8.count) bytes ran on the \(thread)")
        }
    }

    @Test func requestsAreAnsweredWhileEveryAwakeWorkerIsBlocked() throws {
        let release = DispatchSemaphore(value: 0)
        let blocked = Mutex(0)
        let test = try TestServer.start { configuration in
            configuration.workerCount = 4
            configuration.awakeWorkerLimit = 1
        } routes: { router in
            router.get("/block") { _ in
                blocked.withLock { $0 += 1 }
                release.wait()
                return .text("released")
            }
            router.get("/fast") { _ in .text("fast") }
        }
        defer { test.stop() }
        var released = false
        // A failed expectation must not leave workers blocked for the rest of the run.
        defer { if !released { release.signal(); release.signal() } }
        let blockers = try (0..<2).map { _ in try test.client() }
        for client in blockers { try client.send(get("/block")) }
        // Both block at once: the second was taken by a worker woken for it though only one may
        // be woken for new requests.
        var waited = 0
        while blocked.withLock({ $0 }) < 2 && waited < 10_000 {
            usleep(1_000)
            waited += 1
        }
        #expect(blocked.withLock { $0 } == 2)
        #expect(try test.request(get("/fast")).text == "fast")
        release.signal()
        release.signal()
        released = true
        for client in blockers { #expect(try client.readResponse().text == "released") }
    }

    @Test func decodesChunkedRequestBodies() throws {
        let test = try TestServer.start { router in
            router.post("/echo") { request in HTTPResponse(bytes: request.body) }
        }
        defer { test.stop() }
        let client = try test.client()
        try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n")
        usleep(50_000)
        try client.send("1;x=y\r\n \r\n6\r\nworld!\r\n0\r\nX-Trailer: 1\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.text == "hello world!")
    }

    @Test func sendsContinueBeforeTheBody() throws {
        let test = try TestServer.start { router in
            router.put("/upload") { request in .text("got \(request.body.count)") }
        }
        defer { test.stop() }
        let client = try test.client()
        try client.send("PUT /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
        let interim = try client.readHead()
        #expect(interim.status == 100)
        try client.send("abcd")
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.text == "got 4")
    }

    @Test func refusesUnknownExpectations() throws {
        let test = try TestServer.start { router in
            router.put("/upload") { _ in .text("no") }
        }
        defer { test.stop() }
        let client = try test.client()
        try client.send("PUT /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nExpect: magic\r\n\r\nabcd")
        #expect(try client.readResponse().status == 417)
        #expect(client.waitForClose())
    }

    @Test func answersHeadWithoutABody() throws {
        let test = try TestServer.start { router in
            router.get("/doc") { _ in .text("twelve bytes") }
        }
        defer { test.stop() }
        let client = try test.client()
        try client.send("HEAD /doc HTTP/1.1\r\nHost: t\r\n\r\n" + get("/doc"))
        let head = try client.readResponse(head: true)
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == "12")
        // The next response starts right after the head: no body bytes in between.
        let full = try client.readResponse()
        #expect(full.text == "twelve bytes")
    }

    @Test func answersUnknownMethodsWith405AndAllow() throws {
        let test = try TestServer.start { router in
            router.get("/thing") { _ in .text("get") }
            router.post("/thing") { _ in .text("post") }
        }
        defer { test.stop() }
        let response = try test.request("DELETE /thing HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(response.status == 405)
        #expect(response.header("Allow") == "GET, HEAD, OPTIONS, POST")
        let options = try test.request("OPTIONS /thing HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(options.status == 204)
        #expect(options.header("Allow") == "GET, HEAD, OPTIONS, POST")
        #expect(try test.request(get("/nothing")).status == 404)
    }

    @Test func capturesPathParametersAndQueries() throws {
        let test = try TestServer.start { router in
            router.post("/database/1/:container/:environment/:database/records/query") { request in
                let p = request.pathParameters
                return .text("\(p["container"]!)|\(p["environment"]!)|\(p["database"]!)|\(request.queryParameter("x") ?? "-")")
            }
            router.get("/database/1/:container/special") { _ in .text("literal wins") }
            router.get("/files/*rest") { request in .text("rest=\(request.pathParameters["rest"]!)") }
        }
        defer { test.stop() }
        let response = try test.request(
            "POST /database/1/iCloud.com.x/development/public/records/query?x=a%20b HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n")
        #expect(response.text == "iCloud.com.x|development|public|a b")
        #expect(try test.request(get("/database/1/abc/special")).text == "literal wins")
        #expect(try test.request(get("/files/a/b%20c/d.txt")).text == "rest=a/b c/d.txt")
        #expect(try test.request(get("/files/")).text == "rest=")
        #expect(try test.request(get("/bad%zz")).status == 400)
    }

    @Test func turnsErrorsIntoResponses() throws {
        struct Teapot: HTTPResponseConvertibleError {
            var httpResponse: HTTPResponse { .error(HTTPStatus(code: 418, reasonPhrase: "I'm a teapot")) }
        }
        struct Boom: Error {}
        let test = try TestServer.start { router in
            router.get("/teapot") { _ in throw Teapot() }
            router.get("/boom") { _ in throw Boom() }
            router.get("/conflict") { _ in throw HTTPError(.conflict, message: "already there") }
        }
        defer { test.stop() }
        #expect(try test.request(get("/teapot")).status == 418)
        let boom = try test.request(get("/boom"))
        #expect(boom.status == 500)
        #expect(boom.header("Content-Type") == "application/json; charset=utf-8")
        #expect(boom.text == #"{"status":500,"error":"Internal Server Error"}"#)
        let conflict = try test.request(get("/conflict"))
        #expect(conflict.status == 409)
        #expect(conflict.text == #"{"status":409,"error":"already there"}"#)
    }

    @Test func runsMiddlewareOnGroupsIncludingPreflight() throws {
        let cors = MiddlewareFunction { request, next in
            if request.method == .options {
                return HTTPResponse(
                    status: .noContent, headers: ["Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "POST"])
            }
            var response = try next(request)
            response.headers["Access-Control-Allow-Origin"] = "*"
            return response
        }
        enum Tag: RequestAttributeKey { typealias Value = String }
        let tagger = MiddlewareFunction { request, next in
            var request = request
            request.attributes[Tag.self] = "tagged"
            return try next(request)
        }
        let test = try TestServer.start { router in
            router.group("/api", middleware: [cors, tagger]) { api in
                api.post("/items") { request in .text(request.attributes[Tag.self] ?? "untagged") }
            }
            router.get("/plain") { _ in .text("plain") }
        }
        defer { test.stop() }
        let post = try test.request("POST /api/items HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n")
        #expect(post.text == "tagged")
        #expect(post.header("Access-Control-Allow-Origin") == "*")
        let preflight = try test.request("OPTIONS /api/items HTTP/1.1\r\nHost: t\r\nOrigin: x\r\n\r\n")
        #expect(preflight.status == 204)
        #expect(preflight.header("Access-Control-Allow-Methods") == "POST")
        #expect(try test.request(get("/plain")).header("Access-Control-Allow-Origin") == nil)
    }

    @Test func keepsHTTP10ConnectionsOnlyWhenAsked() throws {
        let test = try TestServer.start { router in
            router.get("/x") { _ in .text("x") }
        }
        defer { test.stop() }
        let client = try test.client()
        try client.send("GET /x HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        let first = try client.readResponse()
        #expect(first.header("Connection") == "keep-alive")
        try client.send("GET /x HTTP/1.0\r\n\r\n")
        let second = try client.readResponse()
        #expect(second.header("Connection") == "close")
        #expect(client.waitForClose())
    }

    @Test func writesOneAccessLogLinePerRequest() throws {
        let test = try TestServer.start { router in
            router.get("/logged") { _ in .text("ok") }
        }
        let client = try test.client()
        for _ in 0..<5 {
            try client.send(get("/logged"))
            _ = try client.readResponse()
        }
        test.stop()
        let lines = test.log.all.filter { $0.contains("\"GET /logged HTTP/1.1\" 200") }
        #expect(lines.count == 5)
    }

    /// With the server's own buffered handler, access lines go straight into its writer: the
    /// same line as through any other handler, timestamped, labelled and redacted.
    @Test func writesAccessLinesIntoTheBufferedWriter() throws {
        let directory = try TemporaryDirectory(prefix: "access-log")
        let path = directory.path + "/access.log"
        let writer = try BufferedLogWriter(path: path)
        let logger = Logger(label: "cumulus.http") { label in BufferedLogHandler(label: label, writer: writer) }
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.eventLoopCount = 1
        configuration.workerCount = 2
        var router = Router()
        router.get("/logged") { _ in .text("ok") }
        let server = HTTPServer(configuration: configuration, router: router, logger: logger)
        let port = try server.start()
        let client = try RawClient(port: port, timeout: 10)
        var requestIDs: [String] = []
        for query in ["ckAPIToken=secret&x=1", "x=%41"] {
            try client.send(get("/logged?\(query)"))
            requestIDs.append(try #require(try client.readResponse().header("X-Request-ID")))
        }
        client.close()
        server.shutdown(gracePeriod: .seconds(2))
        writer.flush()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        let pattern =
            #/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z info cumulus\.http: 127\.0\.0\.1:\d+ "GET (\S+) HTTP/1\.1" 200 2 \d+us (\S+)$/#
        let logged = lines.compactMap { try? pattern.wholeMatch(in: $0) }.map { (String($0.output.1), String($0.output.2)) }
        #expect(logged.map(\.0) == ["/logged?ckAPIToken=REDACTED&x=1", "/logged?x=%41"])
        #expect(logged.map(\.1) == requestIDs)
        #expect(!lines.contains { $0.contains("secret") })
    }
}

@Suite struct ResponseFieldTests {
    @Test func controlBytesInResponseFieldsNeverSplitTheHead() throws {
        // CR, LF and NUL anywhere in a value (in an eight-byte word or in the bytes after the
        // last whole word) become spaces; a colon in a name becomes `_`.
        let values = ["a\r\nInjected: 1", "0123456\nX", "01234567\r", "0123456789abcdef\0gh", "01234567890\nInjected: 2"]
        let test = try TestServer.start { router in
            router.get("/fields") { _ in
                var headers = HTTPHeaders()
                for (index, value) in values.enumerated() { headers.add(name: "X-Value-\(index)", value: value) }
                headers.add(name: "X-Bad:Name", value: "ok")
                headers.add(name: "X-Plain", value: "application/json; charset=utf-8, and more than eight bytes")
                return HTTPResponse(status: .ok, headers: headers, body: .bytes(Array("ok".utf8)))
            }
        }
        defer { test.stop() }
        let client = try test.client()
        try client.send(get("/fields"))
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.text == "ok")
        #expect(response.header("Injected") == nil)
        #expect(response.header("X-Value-0") == "a  Injected: 1")
        #expect(response.header("X-Value-1") == "0123456 X")
        #expect(response.header("X-Value-2") == "01234567")
        #expect(response.header("X-Value-3") == "0123456789abcdef gh")
        #expect(response.header("X-Value-4") == "01234567890 Injected: 2")
        #expect(response.header("X-Bad_Name") == "ok")
        #expect(response.header("X-Plain") == "application/json; charset=utf-8, and more than eight bytes")
    }
}
