import Foundation

/// What went wrong on a connection of the asset store's HTTP client, before it is told as a
/// ``CloudStoreError``.
struct HTTPClientFailure: Error, CustomStringConvertible {
    var description: String
    /// Whether the peer closed the connection before answering at all: a kept-alive connection
    /// it had already dropped, worth one more try on a new one.
    var closedBeforeAnswer = false
    /// Whether the failure is a wait that ran out.
    var timedOut = false
}

/// One blocking HTTP/1.1 connection to an object store, with the bytes received and not yet
/// read. A value is used by one caller at a time: the client's pool hands it out and takes it
/// back.
struct HTTPClientConnection: Sendable {
    /// The socket.
    let descriptor: Int32
    /// Received bytes not consumed yet start at `start`.
    private var buffer: [UInt8] = []
    private var start = 0

    /// The most bytes a response head may have.
    static let maximumHeadBytes = 64 * 1024

    private init(descriptor: Int32) { self.descriptor = descriptor }

    // MARK: - Connecting

    /// Connects to `host:port`, trying each address the name resolves to.
    /// - Parameter timeout: How long connecting, and later each read or write, may wait.
    static func connect(host: String, port: Int, timeout: Duration) throws(HTTPClientFailure) -> HTTPClientConnection {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0, let first = list else {
            throw HTTPClientFailure(description: "cannot resolve the host name (\(String(cString: gai_strerror(resolved))))")
        }
        defer { freeaddrinfo(list) }
        var lastFailure = HTTPClientFailure(description: "no address to connect to")
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let address = next {
            next = address.pointee.ai_next
            do {
                return HTTPClientConnection(descriptor: try open(address.pointee, timeout: timeout))
            } catch {
                lastFailure = error
            }
        }
        throw lastFailure
    }

    /// A connected, blocking socket with read and write timeouts.
    private static func open(_ address: addrinfo, timeout: Duration) throws(HTTPClientFailure) -> Int32 {
        let descriptor = socket(
            address.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw HTTPClientFailure(description: "socket failed: \(Self.describe(errno))") }
        // Non-blocking only while connecting, so that the wait can be bounded by poll.
        if Glibc.connect(descriptor, address.ai_addr, address.ai_addrlen) != 0 {
            let code = errno
            guard code == EINPROGRESS else {
                Glibc.close(descriptor)
                throw HTTPClientFailure(description: "connect failed: \(Self.describe(code))")
            }
            var waiting = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&waiting, 1, Int32(clamping: timeout.milliseconds))
            guard ready > 0 else {
                Glibc.close(descriptor)
                throw HTTPClientFailure(description: "connect timed out", timedOut: true)
            }
            var failure: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length)
            guard failure == 0 else {
                Glibc.close(descriptor)
                throw HTTPClientFailure(description: "connect failed: \(Self.describe(failure))")
            }
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        var wait = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        var on: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        return descriptor
    }

    /// Closes the socket.
    func close() { Glibc.close(descriptor) }

    // MARK: - Sending

    /// Writes the request: its head, then its body.
    func send(_ request: HTTPClientRequest, host: String) throws(HTTPClientFailure) {
        var head = "\(request.method) \(request.target) HTTP/1.1\r\nHost: \(host)\r\n"
        for (name, value) in request.headers { head += "\(name): \(value)\r\n" }
        if !request.body.isEmpty || request.method == "PUT" || request.method == "POST" {
            head += "Content-Length: \(request.body.count)\r\n"
        }
        head += "\r\n"
        try write(Array(head.utf8))
        try write(request.body)
    }

    private func write(_ bytes: [UInt8]) throws(HTTPClientFailure) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent < 0 {
                let code = errno
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK { throw HTTPClientFailure(description: "sending timed out", timedOut: true) }
                throw HTTPClientFailure(
                    description: "sending failed: \(Self.describe(code))", closedBeforeAnswer: code == EPIPE || code == ECONNRESET)
            }
            offset += sent
        }
    }

    // MARK: - Receiving

    /// Reads one response to `request`.
    /// - Returns: the response, and whether the connection may carry another request.
    mutating func receive(for request: HTTPClientRequest) throws(HTTPClientFailure) -> (HTTPClientResponse, reusable: Bool) {
        var (version, status, headers) = try readHead(firstOfResponse: true)
        // Interim answers (100 Continue) come before the real one.
        while (100..<200).contains(status) && status != 101 {
            (version, status, headers) = try readHead(firstOfResponse: false)
        }
        var response = HTTPClientResponse(status: status, headers: headers, body: [])
        var reusable = version == "HTTP/1.1" && response.header("Connection")?.lowercased() != "close"
        if request.expectsNoBody || status == 204 || status == 304 {
            return (response, reusable)
        }
        if let encoding = response.header("Transfer-Encoding"), encoding.lowercased().contains("chunked") {
            response.body = try readChunkedBody()
        } else if let lengthText = response.header("Content-Length") {
            guard let length = Int(lengthText.trimmingCharacters(in: .whitespaces)), length >= 0 else {
                throw HTTPClientFailure(description: "the response's Content-Length is not a number")
            }
            response.body = try readBytes(length)
        } else {
            response.body = try readToEnd()
            reusable = false
        }
        return (response, reusable)
    }

    private mutating func readHead(firstOfResponse: Bool) throws(HTTPClientFailure)
        -> (version: String, status: Int, headers: [(name: String, value: String)])
    {
        // Bytes after `start` already searched; counted from `start`, which moves when the buffer is compacted.
        var searched = 0
        while true {
            if let end = Self.headEnd(in: buffer, from: start + max(0, searched - 3)) {
                let text = String(decoding: buffer[start..<end], as: UTF8.self)
                start = end + 4
                var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false).makeIterator()
                let statusLine = lines.next() ?? ""
                let parts = statusLine.split(separator: " ", maxSplits: 2)
                guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
                    throw HTTPClientFailure(description: "the answer is not HTTP")
                }
                var headers: [(name: String, value: String)] = []
                while let line = lines.next() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
                }
                return (String(parts[0]), status, headers)
            }
            guard buffer.count - start < Self.maximumHeadBytes else {
                throw HTTPClientFailure(description: "the response head is too large")
            }
            searched = buffer.count - start
            let received = try fill(answerStarted: !firstOfResponse || buffer.count > start)
            if received == 0 {
                throw HTTPClientFailure(
                    description: "the connection closed before an answer", closedBeforeAnswer: firstOfResponse && buffer.count == start)
            }
        }
    }

    private static func headEnd(in bytes: [UInt8], from index: Int) -> Int? {
        var index = index
        while index + 3 < bytes.count {
            if bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 13, bytes[index + 3] == 10 { return index }
            index += 1
        }
        return nil
    }

    /// Exactly `count` bytes of body: those buffered first, then the rest received straight
    /// into the result.
    private mutating func readBytes(_ count: Int) throws(HTTPClientFailure) -> [UInt8] {
        let buffered = min(count, buffer.count - start)
        var failure: HTTPClientFailure?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { output, initialized in
            buffer.withUnsafeBytes { source in
                UnsafeMutableRawBufferPointer(output).copyMemory(from: UnsafeRawBufferPointer(rebasing: source[start..<start + buffered]))
            }
            initialized = buffered
            while initialized < count {
                let received = recv(descriptor, output.baseAddress! + initialized, count - initialized, 0)
                if received > 0 {
                    initialized += received
                } else if received == 0 {
                    failure = HTTPClientFailure(description: "the connection closed in the middle of the body")
                    return
                } else if errno != EINTR {
                    failure = Self.receiveFailure(errno, answerStarted: true)
                    return
                }
            }
        }
        start += buffered
        if let failure { throw failure }
        return bytes
    }

    private mutating func readChunkedBody() throws(HTTPClientFailure) -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let line = try readLine()
            let sizeText = line.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            guard let size = Int(sizeText, radix: 16), size >= 0 else {
                throw HTTPClientFailure(description: "a chunk's size is not a number")
            }
            if size == 0 {
                // Trailer fields, then the empty line.
                while try !readLine().isEmpty {}
                return body
            }
            body += try readBytes(size)
            guard try readLine().isEmpty else { throw HTTPClientFailure(description: "a chunk does not end where its size says") }
        }
    }

    /// One line, without its CRLF.
    private mutating func readLine() throws(HTTPClientFailure) -> String {
        while true {
            if let newline = buffer[start...].firstIndex(of: 10) {
                let end = newline > start && buffer[newline - 1] == 13 ? newline - 1 : newline
                let line = String(decoding: buffer[start..<end], as: UTF8.self)
                start = newline + 1
                return line
            }
            guard buffer.count - start < Self.maximumHeadBytes else {
                throw HTTPClientFailure(description: "a line of the response is too long")
            }
            guard try fill() > 0 else { throw HTTPClientFailure(description: "the connection closed in the middle of the body") }
        }
    }

    private mutating func readToEnd() throws(HTTPClientFailure) -> [UInt8] {
        while try fill() > 0 {}
        let bytes = Array(buffer[start...])
        start = buffer.count
        return bytes
    }

    /// Receives more bytes into the buffer; 0 at the end of the stream.
    /// - Parameter answerStarted: Whether any of the response came already, so that a reset is
    ///   no sign of a connection the peer dropped while idle.
    private mutating func fill(answerStarted: Bool = true) throws(HTTPClientFailure) -> Int {
        if start > 0 && start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 64 * 1024 {
            buffer.removeFirst(start)
            start = 0
        }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let received = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress!, $0.count, 0) }
            if received >= 0 {
                buffer.append(contentsOf: chunk[0..<received])
                return received
            }
            let code = errno
            if code == EINTR { continue }
            throw Self.receiveFailure(code, answerStarted: answerStarted)
        }
    }

    private static func receiveFailure(_ code: Int32, answerStarted: Bool) -> HTTPClientFailure {
        if code == EAGAIN || code == EWOULDBLOCK { return HTTPClientFailure(description: "the answer timed out", timedOut: true) }
        return HTTPClientFailure(
            description: "receiving failed: \(describe(code))", closedBeforeAnswer: !answerStarted && code == ECONNRESET)
    }

    static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}

extension Duration {
    /// The duration in whole milliseconds.
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
