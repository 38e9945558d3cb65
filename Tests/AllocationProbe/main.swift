// A child process for the allocation-budget test: it serves the API on 127.0.0.1 with the access
// log on, as `cumulus serve` does, makes each measured request a fixed number of times on one
// keep-alive connection, and prints the calls to malloc the whole process made per request:
//
//   read 78.4
//   query 97.1
//   create 176.0
//
// It counts every thread of the process, so it runs alone, away from other tests' work. Its own
// client sends prebuilt bytes and reads into one buffer, so it allocates nothing per request.
//
// Usage: AllocationProbe [COUNT [CASE…]]   (every case unless some are named)
import AllocationCounter
import CloudStore
import Foundation
import Glibc
import HTTPServer
import Logging
import TestSupport
import WebServices

let count = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 400 : 400
let named = Set(CommandLine.arguments.dropFirst(2))

/// A keep-alive connection that sends one prebuilt request over and over and reads each answer
/// into a buffer made once.
final class RepeatingClient {
    private let connection: RawClient
    private let request: [UInt8]
    private var buffer = [UInt8](repeating: 0, count: 256 * 1024)
    private var socket: Int32 { connection.fd }

    init(port: Int, method: String, target: String, body: String) throws {
        connection = try RawClient(port: port)
        var one: Int32 = 1
        setsockopt(connection.fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        request = Array(
            "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                .utf8)
    }

    /// Sends the request and reads its whole answer; `false` unless it is a 200.
    func exchange() -> Bool {
        let sent = request.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == request.count else { return false }
        return buffer.withUnsafeMutableBytes { buffer -> Bool in
            var filled = 0
            var headEnd = -1
            var total = -1
            while total < 0 || filled < total {
                let received = recv(socket, buffer.baseAddress! + filled, buffer.count - filled, 0)
                guard received > 0 else { return false }
                filled += received
                if headEnd < 0, let end = Self.headEnd(buffer, filled) {
                    headEnd = end
                    guard let length = Self.contentLength(buffer, headEnd) else { return false }
                    total = headEnd + length
                    guard total <= buffer.count else { return false }
                }
            }
            // "HTTP/1.1 200"
            return buffer[9] == UInt8(ascii: "2") && buffer[10] == UInt8(ascii: "0") && buffer[11] == UInt8(ascii: "0")
        }
    }

    /// Where the body starts: after the blank line that ends the head.
    private static func headEnd(_ bytes: UnsafeMutableRawBufferPointer, _ filled: Int) -> Int? {
        guard filled >= 4 else { return nil }
        for index in 0...(filled - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index + 4
        }
        return nil
    }

    /// The Content-Length of the head, read without making a string.
    private static func contentLength(_ bytes: UnsafeMutableRawBufferPointer, _ headEnd: Int) -> Int? {
        let name = Array("\r\ncontent-length:".utf8)
        var index = 0
        while index + name.count < headEnd {
            var matches = true
            for offset in 0..<name.count where (bytes[index + offset] | (offset > 1 ? 0x20 : 0)) != name[offset] {
                matches = false
                break
            }
            if matches {
                var position = index + name.count
                while bytes[position] == UInt8(ascii: " ") { position += 1 }
                var value = 0
                while bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") {
                    value = value * 10 + Int(bytes[position] - UInt8(ascii: "0"))
                    position += 1
                }
                return value
            }
            index += 1
        }
        return nil
    }
}

do {
    let writer = try BufferedLogWriter(path: "/dev/null")
    LoggingSystem.bootstrap { label in BufferedLogHandler(label: label, writer: writer, logLevel: .info) }

    let temporary = try TemporaryStore(container: "iCloud.com.example.Probe", controlledClock: false)
    let store = temporary.store
    let container = temporary.container
    try store.importSchema(
        """
        DEFINE SCHEMA
            RECORD TYPE Note ( "___recordID" REFERENCE QUERYABLE, title STRING, body STRING, count INT64 QUERYABLE SORTABLE,
                               GRANT WRITE TO "_creator", GRANT CREATE TO "_icloud", GRANT READ TO "_world" );
        """, into: container, .development)
    let apiToken = try store.createAPIToken(container, .development, allowedOrigins: [])
    try store.addUser(
        container, name: "alice", password: "correct horse battery", emailAddress: "alice@example.com", firstName: "A", lastName: "L")
    let webAuthToken = try store.signIn(container, .development, name: "alice", password: "correct horse battery").webAuthToken

    let api = WebServices(store: store, configuration: WebServicesConfiguration(signInURL: { base, _, _ in base + "/signin" }))
    var router = Router()
    // Counted as `cumulus serve` counts every request, so the budget covers the metrics too.
    router.metrics = HTTPMetrics()
    api.mount(on: &router)
    let server = HTTPServer(
        configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0), router: router, logger: Logger(label: "cumulus.http"))
    let port = try server.start()

    let base = "/database/1/\(container)/development/public"
    let world = "?ckAPIToken=\(apiToken.token)"
    let signedIn = world + "&ckWebAuthToken=" + PercentEncoding.encodeComponent(webAuthToken)
    let fields =
        #""title":{"value":"A moderately long note title for benchmarking"},"body":{"value":"lorem ipsum dolor sit amet, consectetur adipiscing elit"},"count":{"value":42}"#
    // The record read, and 200 records of which one has count 7 (the query's one result).
    let seed = try RepeatingClient(
        port: port, method: "POST", target: base + "/records/modify" + signedIn,
        body:
            #"{"operations":[{"operationType":"create","record":{"recordName":"lookup-target","recordType":"Note","fields":{\#(fields)}}}]}"#
    )
    guard seed.exchange() else { throw TestFailure("seeding failed") }
    let operations = (0..<200).map { index in
        #"{"operationType":"create","record":{"recordType":"Note","fields":{"count":{"value":\#(index == 123 ? 7 : 1_000 + index)}}}}"#
    }
    let batch = try RepeatingClient(
        port: port, method: "POST", target: base + "/records/modify" + signedIn,
        body: #"{"operations":[\#(operations.joined(separator: ","))],"desiredKeys":[]}"#)
    guard batch.exchange() else { throw TestFailure("seeding failed") }

    let cases: [(name: String, client: RepeatingClient)] = [
        (
            "read",
            try RepeatingClient(
                port: port, method: "POST", target: base + "/records/lookup" + world,
                body: #"{"records":[{"recordName":"lookup-target"}]}"#)
        ),
        (
            "query",
            try RepeatingClient(
                port: port, method: "POST", target: base + "/records/query" + world,
                body: #"{"query":{"recordType":"Note","filterBy":[{"fieldName":"count","comparator":"EQUALS","fieldValue":{"value":7}}]}}"#)
        ),
        (
            "create",
            try RepeatingClient(
                port: port, method: "POST", target: base + "/records/modify" + signedIn,
                body: #"{"operations":[{"operationType":"create","record":{"recordType":"Note","fields":{\#(fields)}}}],"desiredKeys":[]}"#)
        ),
    ]
    for (name, client) in cases where named.isEmpty || named.contains(name) {
        for _ in 0..<100 { guard client.exchange() else { throw TestFailure("\(name) failed") } }
        let before = AllocationCounter_mallocCalls()
        for _ in 0..<count { guard client.exchange() else { throw TestFailure("\(name) failed") } }
        let calls = AllocationCounter_mallocCalls() - before
        print(name, String(format: "%.1f", Double(calls) / Double(count)))
    }
    server.shutdown(gracePeriod: .seconds(1))
} catch {
    FileHandle.standardError.write(Data("AllocationProbe: \(error)\n".utf8))
    exit(1)
}
