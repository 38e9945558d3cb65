import Foundation
import Glibc
import HTTPServer
import Synchronization
import TestSupport
import Testing

/// Streams registered by handlers, for the test to drive from its own thread.
final class StreamBox: Sendable {
    let events = Mutex<[EventStream]>([])
    let pendings = Mutex<[PendingResponse]>([])
    let closed = Atomic<Int>(0)

    /// The first pending response a handler registered, waiting up to a second for one.
    func firstPending() -> PendingResponse? {
        for _ in 0..<100 {
            if let pending = pendings.withLock({ $0.first }) { return pending }
            usleep(10_000)
        }
        return nil
    }
}

/// Adds a header to every answer, as CORS middleware does.
private struct AddedHeader: HTTPMiddleware {
    func respond(to request: HTTPRequest, next: HTTPHandler) throws -> HTTPResponse {
        var response = try next(request)
        response.headers.replaceOrAdd(name: "X-Added", value: "by middleware")
        return response
    }
}

@Suite struct StreamingTests {
    @Test func sendsServerSentEventsWithHeartbeats() throws {
        let box = StreamBox()
        let test = try TestServer.start { router in
            router.get("/events") { _ in
                let stream = EventStream(heartbeatInterval: .milliseconds(100))
                stream.onClose { box.closed.add(1, ordering: .relaxed) }
                box.events.withLock { $0.append(stream) }
                return .eventStream(stream)
            }
        }
        defer { test.stop() }
        let client = try test.client()
        try client.send(get("/events"))
        let head = try client.readHead()
        #expect(head.status == 200)
        #expect(head.header("Content-Type") == "text/event-stream")
        #expect(head.header("Transfer-Encoding") == "chunked")
        // Nothing is sent for a while: a heartbeat comment arrives.
        let heartbeat = try #require(try client.readChunk())
        #expect(String(decoding: heartbeat, as: UTF8.self) == ": heartbeat\n\n")
        let stream = try #require(box.events.withLock { $0.first })
        #expect(stream.send(event: "record", id: "7", data: "line1\nline2"))
        var received = ""
        while !received.contains("line2") {
            received += String(decoding: try #require(try client.readChunk()), as: UTF8.self)
        }
        #expect(received.contains("id: 7\nevent: record\ndata: line1\ndata: line2\n\n"))
        // The client goes away: the stream learns it and refuses further events.
        client.close()
        var noticed = false
        for _ in 0..<100 where !noticed {
            usleep(20_000)
            noticed = box.closed.load(ordering: .relaxed) == 1
            _ = stream.send(data: "ping")
        }
        #expect(noticed)
        #expect(!stream.isOpen)
    }

    @Test func endsAnEventStreamAndKeepsTheConnection() throws {
        let test = try TestServer.start { router in
            router.get("/events") { _ in
                let stream = EventStream()
                stream.send(data: "only")
                stream.close()
                return .eventStream(stream)
            }
            router.get("/after") { _ in .text("after") }
        }
        defer { test.stop() }
        let client = try test.client()
        try client.send(get("/events"))
        #expect(try client.readResponse().text == "data: only\n\n")
        try client.send(get("/after"))
        #expect(try client.readResponse().text == "after")
    }

    @Test func streamsLargeBodiesFromAnotherThread() throws {
        let test = try TestServer.start { router in
            router.get("/download") { _ in
                let stream = ResponseStream(highWaterMark: 64 * 1024)
                let thread = Thread {
                    let block = [UInt8](repeating: UInt8(ascii: "a"), count: 100_000)
                    for _ in 0..<50 { stream.write(block) }
                    stream.finish()
                }
                thread.start()
                return .stream(stream, headers: ["Content-Type": "application/octet-stream"])
            }
        }
        defer { test.stop() }
        let response = try test.request(get("/download"))
        #expect(response.status == 200)
        #expect(response.header("Transfer-Encoding") == "chunked")
        #expect(response.body.count == 5_000_000)
        #expect(response.body.allSatisfy { $0 == UInt8(ascii: "a") })
    }

    @Test func completesLongPollsFromAnotherThread() throws {
        let box = StreamBox()
        let test = try TestServer.start { router in
            router.get("/poll") { _ in
                let pending = PendingResponse(timeout: .seconds(30))
                box.pendings.withLock { $0.append(pending) }
                return .deferred(pending)
            }
        }
        defer { test.stop() }
        let client = try test.client()
        try client.send(get("/poll"))
        let waiting = try #require(box.firstPending())
        #expect(waiting.complete(.json(#"{"changed":true}"#)))
        #expect(!waiting.complete(.text("twice")))
        let response = try client.readResponse()
        #expect(response.text == #"{"changed":true}"#)
    }

    @Test func aDeferredAnswerGetsTheHeadersMiddlewareSetAndIsCompressed() throws {
        let text = String(repeating: "words that compress well ", count: 200)
        let test = try TestServer.start { router in
            router.group("", middleware: [AddedHeader()]) { group in
                group.get("/later") { _ in
                    let pending = PendingResponse(timeout: .seconds(30))
                    Thread {
                        usleep(20_000)
                        pending.complete(.text(text))
                    }.start()
                    return .deferred(pending)
                }
                group.get("/already") { _ in
                    let pending = PendingResponse(timeout: .seconds(30))
                    pending.complete(.text(text))
                    return .deferred(pending)
                }
                group.get("/expired") { _ in
                    .deferred(PendingResponse(timeout: .milliseconds(100), timeoutResponse: .text("late")))
                }
            }
        }
        defer { test.stop() }
        for path in ["/later", "/already"] {
            let response = try test.request(get(path, headers: "Accept-Encoding: gzip\r\n"))
            #expect(response.status == 200)
            #expect(response.header("X-Added") == "by middleware", "\(path)")
            #expect(response.header("Content-Encoding") == "gzip", "\(path)")
            #expect(Gzip.decompress(response.body) == Array(text.utf8))
        }
        let expired = try test.request(get("/expired"))
        #expect(expired.text == "late")
        #expect(expired.header("X-Added") == "by middleware")
    }

    @Test func aTimeoutResponseIsMadeOnlyWhenItIsSent() throws {
        let made = Atomic<Int>(0)
        let test = try TestServer.start { router in
            router.get("/late") { _ in
                .deferred(
                    PendingResponse(timeout: .milliseconds(100)) {
                        made.add(1, ordering: .relaxed)
                        return .text("timed out")
                    })
            }
            router.get("/done") { _ in
                let pending = PendingResponse(timeout: .seconds(30)) {
                    made.add(100, ordering: .relaxed)
                    return .text("never")
                }
                pending.complete(.text("done"))
                return .deferred(pending)
            }
        }
        defer { test.stop() }
        #expect(try test.request(get("/done")).text == "done")
        #expect(made.load(ordering: .relaxed) == 0)
        #expect(try test.request(get("/late")).text == "timed out")
        #expect(made.load(ordering: .relaxed) == 1)
    }

    @Test func shutdownWaitsForADeferredAnswerThatWillCome() throws {
        let box = StreamBox()
        let test = try TestServer.start { router in
            router.get("/write") { _ in
                let pending = PendingResponse(timeout: .seconds(30), timeoutResponse: .text("gave up"), waitsThroughShutdown: true)
                box.pendings.withLock { $0.append(pending) }
                return .deferred(pending)
            }
        }
        let client = try test.client()
        try client.send(get("/write"))
        let waiting = try #require(box.firstPending())
        let stopped = Thread { test.stop() }
        stopped.start()
        usleep(100_000)
        #expect(!waiting.isCompleted, "shutdown did not answer for it")
        #expect(waiting.complete(.text("committed")))
        let response = try client.readResponse()
        #expect(response.text == "committed")
    }

    @Test func answersLongPollsWithTheTimeoutResponse() throws {
        let test = try TestServer.start { router in
            router.get("/poll") { _ in
                .deferred(PendingResponse(timeout: .milliseconds(200), timeoutResponse: .json(#"{"changes":[]}"#)))
            }
        }
        defer { test.stop() }
        let response = try test.request(get("/poll"))
        #expect(response.status == 200)
        #expect(response.text == #"{"changes":[]}"#)
    }

    @Test func parksManyLongPollsWithoutHoldingWorkers() throws {
        let box = StreamBox()
        let test = try TestServer.start(configure: { $0.workerCount = 4 }) { router in
            router.get("/poll") { _ in
                let pending = PendingResponse(timeout: .seconds(60))
                box.pendings.withLock { $0.append(pending) }
                return .deferred(pending)
            }
            router.get("/work") { _ in .text("worked") }
        }
        defer { test.stop() }
        var clients: [RawClient] = []
        for _ in 0..<200 {
            let client = try test.client()
            try client.send(get("/poll"))
            clients.append(client)
        }
        var parked = 0
        for _ in 0..<500 where parked < 200 {
            usleep(10_000)
            parked = box.pendings.withLock { $0.count }
        }
        #expect(parked == 200)
        // Four workers, two hundred parked long-polls: ordinary requests still run.
        for _ in 0..<10 {
            #expect(try test.request(get("/work")).text == "worked")
        }
        for (index, pending) in box.pendings.withLock({ $0 }).enumerated() {
            pending.complete(.text("done \(index)"))
        }
        var completed = 0
        for client in clients where try client.readResponse().text.hasPrefix("done ") { completed += 1 }
        #expect(completed == 200)
    }

    @Test func cancelsLongPollsWhenTheClientLeaves() throws {
        let box = StreamBox()
        let test = try TestServer.start { router in
            router.get("/poll") { _ in
                let pending = PendingResponse(timeout: .seconds(30))
                pending.onCancel { box.closed.add(1, ordering: .relaxed) }
                box.pendings.withLock { $0.append(pending) }
                return .deferred(pending)
            }
        }
        defer { test.stop() }
        let client = try test.client()
        try client.send(get("/poll"))
        for _ in 0..<100 where box.pendings.withLock({ $0.isEmpty }) { usleep(10_000) }
        client.close()
        for _ in 0..<100 where box.closed.load(ordering: .relaxed) == 0 { usleep(10_000) }
        #expect(box.closed.load(ordering: .relaxed) == 1)
        #expect(box.pendings.withLock { $0.first?.isCompleted } == true)
    }
}
