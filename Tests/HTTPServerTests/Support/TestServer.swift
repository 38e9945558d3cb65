import Foundation
import Glibc
import HTTPServer
import Logging
import Synchronization

/// A server started on a free loopback port for one test, with raw-socket clients.
struct TestServer {
    let server: HTTPServer
    let port: Int
    let log: CapturedLog

    /// Starts a server with the given routes and settings on 127.0.0.1, port 0.
    static func start(
        configure: (inout HTTPServerConfiguration) -> Void = { _ in },
        routes: (inout Router) -> Void
    ) throws -> TestServer {
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.eventLoopCount = 2
        configuration.workerCount = 4
        configure(&configuration)
        var router = Router()
        routes(&router)
        let log = CapturedLog()
        var logger = Logger(label: "test") { _ in CapturingLogHandler(log: log) }
        logger.logLevel = .info
        let server = HTTPServer(configuration: configuration, router: router, logger: logger)
        let port = try server.start()
        return TestServer(server: server, port: port, log: log)
    }

    /// A connected raw client.
    func client(timeout: TimeInterval = 10) throws -> RawClient {
        try RawClient(port: port, timeout: timeout)
    }

    /// Sends one request on a new connection and reads the response.
    func request(_ text: String) throws -> TestResponse {
        let client = try client()
        defer { client.close() }
        try client.send(text)
        return try client.readResponse()
    }

    func stop() {
        server.shutdown(gracePeriod: .seconds(2))
    }
}

/// Log lines kept in memory.
final class CapturedLog: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

struct CapturingLogHandler: LogHandler {
    let log: CapturedLog
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) { log.append("\(event.level) \(event.message)") }
}

/// A parsed response as a test sees it.
struct TestResponse {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    var text: String { String(decoding: body, as: UTF8.self) }
}

struct ClientError: Error, CustomStringConvertible {
    var description: String
}

/// A blocking TCP client on 127.0.0.1 that sends bytes verbatim and parses responses.
final class RawClient {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(port: Int, timeout: TimeInterval = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ClientError(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(fd)
            throw ClientError(description: "connect: errno \(code)")
        }
        setTimeout(timeout)
    }

    deinit { Glibc.close(fd) }

    func close() { shutdown(fd, Int32(SHUT_RDWR)) }

    func setTimeout(_ seconds: TimeInterval) {
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - floor(seconds)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw ClientError(description: "send: errno \(errno)") }
            offset += sent
        }
    }

    /// Reads more bytes into the buffer; false at end of stream (or reset).
    @discardableResult
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            buffer += chunk[0..<count]
            return true
        }
        if count == 0 || errno == ECONNRESET { return false }
        throw ClientError(description: "recv: errno \(errno) (timeout?)")
    }

    private func readLine() throws -> String {
        while true {
            if let index = buffer.firstIndex(of: 0x0A) {
                let line = buffer[..<index]
                buffer.removeFirst(index + 1)
                return String(decoding: line.last == 0x0D ? line.dropLast() : line, as: UTF8.self)
            }
            guard try fill() else { throw ClientError(description: "connection closed while reading a line") }
        }
    }

    private func readExactly(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard try fill() else { throw ClientError(description: "connection closed while reading \(count) bytes") }
        }
        let bytes = Array(buffer[..<count])
        buffer.removeFirst(count)
        return bytes
    }

    /// Reads the head of a response (skipping nothing).
    func readHead() throws -> TestResponse {
        let statusLine = try readLine()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, let status = Int(parts[1]) else { throw ClientError(description: "bad status line \(statusLine)") }
        var headers: [(name: String, value: String)] = []
        while true {
            let line = try readLine()
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { throw ClientError(description: "bad header \(line)") }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        return TestResponse(status: status, headers: headers, body: [])
    }

    /// Reads one complete response; `head` skips the body (for HEAD requests).
    func readResponse(head: Bool = false) throws -> TestResponse {
        var response = try readHead()
        if response.status == 100 { return try readResponse(head: head) }
        if head || response.status == 204 || response.status == 304 { return response }
        if let length = response.header("Content-Length").flatMap(Int.init) {
            response.body = try readExactly(length)
        } else if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            while true {
                let sizeLine = try readLine()
                guard let size = Int(sizeLine, radix: 16) else { throw ClientError(description: "bad chunk size \(sizeLine)") }
                if size == 0 {
                    _ = try readLine()
                    break
                }
                response.body += try readExactly(size)
                _ = try readLine()
            }
        } else {
            while try fill() {}
            response.body = buffer
            buffer = []
        }
        return response
    }

    /// Reads the next chunk of a chunked body; nil at the last chunk.
    func readChunk() throws -> [UInt8]? {
        let sizeLine = try readLine()
        guard let size = Int(sizeLine, radix: 16) else { throw ClientError(description: "bad chunk size \(sizeLine)") }
        if size == 0 {
            _ = try readLine()
            return nil
        }
        let bytes = try readExactly(size)
        _ = try readLine()
        return bytes
    }

    /// Whether the server closes the connection (end of stream or reset) within the timeout,
    /// discarding anything it sends before.
    func waitForClose() -> Bool {
        while true {
            do {
                if try !fill() { return true }
            } catch {
                return false
            }
        }
    }

    /// Bytes buffered but not consumed by a parse.
    var pending: [UInt8] { buffer }
}

/// An HTTP/1.1 GET with a Host header.
func get(_ path: String, headers: String = "") -> String {
    "GET \(path) HTTP/1.1\r\nHost: test\r\n\(headers)\r\n"
}
