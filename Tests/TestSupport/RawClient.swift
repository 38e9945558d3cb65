import Foundation
import Glibc

/// A response as a test sees it: status, headers in order, and the body bytes.
public struct TestResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Every header line, in the order received.
    public var headers: [(name: String, value: String)]
    /// The body, de-chunked.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of a header, whatever its case.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Every value of a header, whatever its case.
    public func headers(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    /// The body decoded as UTF-8.
    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// What a test client could not do: connect, send or read.
public struct ClientError: Error, CustomStringConvertible {
    /// What went wrong.
    public var description: String

    /// Creates an error.
    public init(description: String) { self.description = description }
}

/// A blocking TCP client on 127.0.0.1 that sends bytes verbatim and parses responses, with
/// keep-alive, pipelining and chunked bodies: the one client every test target uses.
public final class RawClient {
    /// The socket.
    public let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to `127.0.0.1:port`; reads give up after `timeout` seconds.
    /// - Parameter source: Another loopback address to connect from, such as `127.0.0.2`, for a
    ///   test of what the server does per client address.
    public init(port: Int, timeout: TimeInterval = 10, from source: String? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ClientError(description: "socket: errno \(errno)") }
        // Binding first picks the address the server sees; port 0 lets the system choose the port.
        for (call, host, port) in [("bind", source, 0), ("connect", "127.0.0.1", port)] {
            guard let host else { continue }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr(host)
            let result = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { [fd] in
                    call == "bind"
                        ? bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                        : connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard result == 0 else {
                let code = errno
                Glibc.close(fd)
                throw ClientError(description: "\(call) \(host): errno \(code)")
            }
        }
        setTimeout(timeout)
    }

    deinit { Glibc.close(fd) }

    /// Shuts the connection down in both directions.
    public func close() { shutdown(fd, Int32(SHUT_RDWR)) }

    /// Sets how long a read waits.
    public func setTimeout(_ seconds: TimeInterval) {
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - floor(seconds)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Sends text as UTF-8.
    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Sends bytes, all of them.
    public func send(_ bytes: [UInt8]) throws {
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
    public func readHead() throws -> TestResponse {
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
    public func readResponse(head: Bool = false) throws -> TestResponse {
        var response = try readHead()
        if response.status == 100 { return try readResponse(head: head) }
        if head || response.status == 204 || response.status == 304 { return response }
        if let length = response.header("Content-Length").flatMap(Int.init) {
            response.body = try readExactly(length)
        } else if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            while let chunk = try readChunk() { response.body += chunk }
        } else {
            while try fill() {}
            response.body = buffer
            buffer = []
        }
        return response
    }

    /// Reads the next chunk of a chunked body; nil at the last chunk.
    public func readChunk() throws -> [UInt8]? {
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
    public func waitForClose() -> Bool {
        while true {
            do {
                if try !fill() { return true }
            } catch {
                return false
            }
        }
    }

    /// Bytes buffered but not consumed by a parse.
    public var pending: [UInt8] { buffer }
}
