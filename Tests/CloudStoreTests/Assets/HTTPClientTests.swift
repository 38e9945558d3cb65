import Foundation
import Glibc
import Synchronization
import Testing

@testable import CloudStore

/// The asset store's HTTP client against a scripted server on 127.0.0.1: bodies by length, in
/// chunks and to the end of the stream, kept-alive connections, one the server dropped, and
/// servers that are not there or do not answer.
@Suite struct HTTPClientTests {
    @Test func bodiesByLengthAndInChunksOverOneKeptConnection() throws {
        let server = try ScriptedServer { request, _ in
            request.hasPrefix("GET /chunked")
                ? "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nX-Trailer: t\r\n\r\n"
                : "HTTP/1.1 200 OK\r\nContent-Length: 6\r\nX-Seen: \(request.split(separator: "\r\n")[0])\r\n\r\nlength"
        }
        let client = HTTPClient(host: "127.0.0.1", port: server.port, timeout: .seconds(5))
        let first = try client.send(HTTPClientRequest(method: "GET", target: "/length", headers: []))
        #expect(first.status == 200 && first.body == Array("length".utf8) && first.header("x-seen") == "GET /length HTTP/1.1")
        let second = try client.send(HTTPClientRequest(method: "GET", target: "/chunked", headers: []))
        #expect(second.body == Array("hello, world".utf8))
        let put = try client.send(HTTPClientRequest(method: "PUT", target: "/x", headers: [], body: Array(repeating: 7, count: 100_000)))
        #expect(put.status == 200)
        #expect(server.connections == 1, "one connection carried all three")
        #expect(server.bodyBytes == 100_000)
        #expect(client.idleConnectionCount == 1)
    }

    @Test func aHeadAnswerHasNoBodyAndAnEndOfStreamBodyEndsTheConnection() throws {
        let server = try ScriptedServer { request, _ in
            request.hasPrefix("HEAD") ? "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" : "HTTP/1.0 200 OK\r\n\r\nuntil the end"
        }
        let client = HTTPClient(host: "127.0.0.1", port: server.port, timeout: .seconds(5))
        let head = try client.send(HTTPClientRequest(method: "HEAD", target: "/", headers: []))
        #expect(head.status == 200 && head.body.isEmpty)
        let rest = try client.send(HTTPClientRequest(method: "GET", target: "/", headers: []))
        #expect(rest.body == Array("until the end".utf8))
        #expect(client.idleConnectionCount == 0, "a body that ends with the stream leaves no connection to keep")
    }

    @Test func aKeptConnectionTheServerDroppedIsReplacedOnce() throws {
        // The server closes each connection after its first answer, without saying so.
        let server = try ScriptedServer(closeAfterEachAnswer: true) { _, number in
            "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n\(number % 10)"
        }
        let client = HTTPClient(host: "127.0.0.1", port: server.port, timeout: .seconds(5))
        for _ in 0..<3 {
            #expect(try client.send(HTTPClientRequest(method: "GET", target: "/", headers: [])).status == 200)
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(server.connections == 3)
    }

    @Test func noServerAndASilentOneAreFailuresNotHangs() throws {
        let closed = try ScriptedServer { _, _ in "" }
        let port = closed.port
        closed.stop()
        let refused = HTTPClient(host: "127.0.0.1", port: port, timeout: .seconds(2))
        #expect(throws: HTTPClientFailure.self) { try refused.send(HTTPClientRequest(method: "GET", target: "/", headers: [])) }

        let silent = try ScriptedServer { _, _ in nil }
        let client = HTTPClient(host: "127.0.0.1", port: silent.port, timeout: .milliseconds(300))
        let started = ContinuousClock.now
        do {
            _ = try client.send(HTTPClientRequest(method: "GET", target: "/", headers: []))
            Issue.record("a server that never answers must time out")
        } catch {
            #expect(error.timedOut, "\(error)")
        }
        #expect(ContinuousClock.now - started < .seconds(3))
    }
}

/// A one-thread HTTP server on 127.0.0.1 that answers each request with what `answer` gives
/// for the request's head and its number (`nil`: no answer at all).
final class ScriptedServer: Sendable {
    let port: Int
    private let listener: Int32
    private let state = Shared()
    private struct State {
        var connections = 0
        var bodyBytes = 0
        var stopped = false
    }
    private final class Shared: Sendable {
        let mutex = Mutex(State())
        func withLock<T>(_ body: (inout State) -> T) -> T { mutex.withLock { body(&$0) } }
    }

    var connections: Int { state.withLock { $0.connections } }
    var bodyBytes: Int { state.withLock { $0.bodyBytes } }

    init(closeAfterEachAnswer: Bool = false, answer: @escaping @Sendable (String, Int) -> String?) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && getsockname(listener, pointer, &length) == 0 && listen(listener, 16) == 0
            }
        }
        guard listening else { throw ClientErrorForTests("cannot listen: errno \(errno)") }
        port = Int(UInt16(bigEndian: address.sin_port))
        let state = self.state
        Thread.detachNewThread {
            var number = 0
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else {
                    // Closed here, not in stop(), so that no other socket can take its number while accept may still use it.
                    close(listener)
                    return
                }
                state.withLock { $0.connections += 1 }
                var buffer: [UInt8] = []
                serving: while true {
                    // The head, then as many body bytes as Content-Length says.
                    while Self.headEnd(buffer) == nil {
                        var chunk = [UInt8](repeating: 0, count: 65536)
                        let count = recv(connection, &chunk, chunk.count, 0)
                        if count <= 0 { break serving }
                        buffer += chunk[0..<count]
                    }
                    let end = Self.headEnd(buffer)!
                    let head = String(decoding: buffer[0..<end], as: UTF8.self)
                    let length =
                        head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                        .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                    while buffer.count < end + 4 + length {
                        var chunk = [UInt8](repeating: 0, count: 65536)
                        let count = recv(connection, &chunk, chunk.count, 0)
                        if count <= 0 { break serving }
                        buffer += chunk[0..<count]
                    }
                    buffer.removeFirst(end + 4 + length)
                    state.withLock { $0.bodyBytes += length }
                    number += 1
                    guard let reply = answer(head, number) else { continue }
                    _ = Array(reply.utf8).withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    if closeAfterEachAnswer || reply.hasPrefix("HTTP/1.0") { break }
                }
                close(connection)
            }
        }
    }

    deinit { stop() }

    /// Stops listening.
    func stop() {
        let wasStopped = state.withLock { state in
            defer { state.stopped = true }; return state.stopped
        }
        if !wasStopped { shutdown(listener, Int32(SHUT_RDWR)) }
    }

    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        return (0...(bytes.count - 4)).first { bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10 }
    }
}

struct ClientErrorForTests: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
