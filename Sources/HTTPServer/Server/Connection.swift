import CLinux
import Glibc
import Logging

/// One client connection: reads and parses requests, hands them to handlers one at a time (so
/// pipelined requests are answered in order), and writes responses.
///
/// Lives on its event loop's thread only.
final class Connection {
    enum Phase {
        /// Between requests, waiting for the next one (idle timeout).
        case idle
        /// Reading a request head (header-read timeout).
        case head
        /// Reading a request body (body-read timeout between reads).
        case body
        /// A handler is running on the worker pool.
        case handler
        /// Waiting for a `PendingResponse` (its own timeout).
        case pending
        /// Sending a streamed body.
        case streaming
        /// Sent a final response; discarding input until the client closes (or a short timeout),
        /// so that unread input does not turn the close into a reset that destroys the response.
        case lingering
        case closed
    }

    /// The request being read or answered.
    struct Exchange {
        var head: HTTPRequestHead
        var rawPath: String
        var path: String
        var query: String
        var resolution: RouteTable.Resolution
        var body: [UInt8] = []
        var bodyLimit: Int
        var requestID: String
        var started: UInt64
        var status = 0
        var bodyBytes = 0
        /// When the body began to be read, for its deadline.
        var bodyStarted: UInt64 = 0
        /// Body bytes received, framing included, for its deadline.
        var bodyReceived = 0
        /// The client a trusted proxy forwarded the request for, for the access log.
        var forwardedClient: String?
    }

    /// A streamed response being sent.
    struct ActiveStream {
        var channel: StreamChannel
        var chunked: Bool
        var heartbeat: [UInt8]?
        var heartbeatInterval: UInt64
        var nextHeartbeat: UInt64
    }

    // unowned(unsafe): the loop outlives its connections (it closes them all before it ends),
    // and a checked reference costs an atomic operation on every access.
    unowned(unsafe) let loop: EventLoop
    let descriptor: Int32
    let serial: UInt32
    let remoteAddress: String
    /// The peer as a client: what the per-client cap counts, and the client of every request
    /// unless the peer is a trusted proxy.
    let client: ClientAddress
    /// Whether the peer is a trusted proxy: its requests' clients are read from their headers
    /// (``TrustedProxies``), and it is not held to the per-client connection cap.
    let fromTrustedProxy: Bool
    var id: ConnectionID { ConnectionID(descriptor: descriptor, serial: serial) }

    var phase = Phase.head
    var parser: HTTPRequestParser
    /// Received bytes not parsed yet (empty most of the time: reads are parsed in place).
    var inbox: [UInt8] = []
    var outbound = OutboundQueue()
    var exchange: Exchange?
    var stream: ActiveStream?
    var pending: PendingResponse?
    var deadline: UInt64
    var lastWriteProgress: UInt64 = 0
    var interest = EventLoop.readMask
    var keepAlive = true
    var readClosed = false
    var closeWhenFlushed = false
    var lingerWhenFlushed = false

    /// Output queued beyond this stops the parsing of pipelined requests until it drains.
    static let pipelineOutputLimit = 256 * 1024
    /// Unparsed input kept beyond this stops reading until the current request is answered.
    static let inboxLimit = 64 * 1024

    var context: ServerContext { loop.context }
    var isClosed: Bool { phase == .closed }

    init(loop: EventLoop, descriptor: Int32, serial: UInt32, remoteAddress: String, client: ClientAddress, fromTrustedProxy: Bool) {
        self.loop = loop
        self.descriptor = descriptor
        self.serial = serial
        self.remoteAddress = remoteAddress
        self.client = client
        self.fromTrustedProxy = fromTrustedProxy
        parser = HTTPRequestParser(maxHeaderBytes: loop.context.configuration.maxHeaderBytes)
        // A new connection owes us a request head: the header-read timeout runs from accept.
        deadline = loop.now + loop.context.headerReadTimeout
    }

    // MARK: - Reading

    func readable() {
        let buffer = loop.readBuffer
        let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
        if count > 0 {
            switch phase {
            case .lingering:
                return
            case .body:
                // The body's time grows with what arrives, at the minimum rate: never with
                // reads alone, so trickling bytes buys a slow client nothing.
                if exchange != nil {
                    exchange!.bodyReceived += count
                    deadline =
                        exchange!.bodyStarted + context.bodyReadTimeout
                        + UInt64(exchange!.bodyReceived) * 1_000_000_000 / context.minimumBodyBytesPerSecond
                }
            default:
                break
            }
            let input = UnsafeBufferPointer(start: buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), count: count)
            if inbox.isEmpty && canParse {
                let consumed = consume(input)
                if !isClosed && consumed < count { inbox.append(contentsOf: input[consumed...]) }
            } else {
                inbox.append(contentsOf: input)
                processInbox()
            }
            updateInterest()
        } else if count == 0 {
            peerClosed()
        } else if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
            close()
        }
    }

    func writable() {
        flush()
        if phase == .idle { processInbox() }
        updateInterest()
    }

    /// Whether the next bytes may be parsed now.
    var canParse: Bool {
        switch phase {
        case .idle, .head, .body:
            return !closeWhenFlushed && outbound.byteCount < Connection.pipelineOutputLimit
        default:
            return false
        }
    }

    /// Parses buffered input as far as the current state allows.
    func processInbox() {
        guard canParse, !inbox.isEmpty else { return }
        var data = inbox
        inbox = []
        let consumed = data.withUnsafeBufferPointer { consume($0) }
        guard !isClosed, consumed < data.count else { return }
        data.removeFirst(consumed)
        inbox = data
    }

    /// Feeds `input` to the parser and acts on its events; returns how much was consumed.
    private func consume(_ input: UnsafeBufferPointer<UInt8>) -> Int {
        var offset = 0
        while canParse {
            if phase == .idle {
                guard offset < input.count else { return offset }
                phase = .head
                deadline = loop.now + context.headerReadTimeout
            }
            let rest = UnsafeBufferPointer(rebasing: input[offset...])
            let (event, used) = parser.parse(rest)
            offset += used
            switch event {
            case .needMore:
                if used == 0 { return offset }
            case .head(let head):
                beginExchange(head)
            case .body(let range):
                appendBody(UnsafeBufferPointer(rebasing: rest[range]))
            case .end:
                dispatch()
            case .failure(let error):
                refuse(error.status, message: error.description, rawPath: Connection.requestPath(in: rest))
                return input.count
            }
        }
        return offset
    }

    func peerClosed() {
        readClosed = true
        switch phase {
        case .handler:
            // Answer anyway (the client may have only shut down its sending side), then close.
            keepAlive = false
            updateInterest()
        default:
            close()
        }
    }

    func updateInterest() {
        guard !isClosed else { return }
        var mask: UInt32 = 0
        if !readClosed && (inbox.count < Connection.inboxLimit || phase == .lingering) { mask |= EventLoop.readMask }
        if !outbound.isEmpty { mask |= EventLoop.writeMask }
        if mask != interest {
            interest = mask
            loop.setInterest(self, mask)
        }
    }

    // MARK: - Requests

    private func beginExchange(_ head: HTTPRequestHead) {
        let (rawPath, query) = HTTPRequest.splitTarget(head.target)
        let resolution = context.routes.resolve(method: head.method, rawPath: rawPath)
        let path = PercentDecoding.decode(rawPath)
        let requestID = loop.requestIDs.id(reusing: head.headers[context.configuration.requestIDHeader])
        let fallback = RouteTable.Resolution(
            handler: { _ in .error(.badRequest) }, runsOnEventLoop: true, maxBodyBytes: nil, parameters: PathParameters())
        let limit = resolution?.maxBodyBytes ?? context.configuration.maxBodyBytes
        exchange = Exchange(
            head: head, rawPath: rawPath, path: path ?? rawPath, query: query,
            resolution: resolution ?? fallback, bodyLimit: limit, requestID: requestID, started: CLinux_monotonic_ns()
        )
        keepAlive = head.keepAlive && !loop.draining
        guard resolution != nil, path != nil else {
            refuse(.badRequest, message: "malformed percent-encoding in path")
            return
        }
        if head.expectation == .unsupported {
            refuse(.expectationFailed, message: "only 100-continue is supported")
            return
        }
        switch head.framing {
        case .none:
            phase = .body
        case .length(let length):
            if length > limit {
                refuse(.contentTooLarge, message: "body larger than \(limit) bytes")
                return
            }
            exchange?.body.reserveCapacity(min(length, 1 << 20))
            fallthrough
        case .chunked:
            phase = .body
            exchange?.bodyStarted = loop.now
            deadline = loop.now + context.bodyReadTimeout
            if head.expectation == .continue100 && head.version == .http1_1 {
                outbound.append(Connection.continueLine)
                flush()
            }
        }
    }

    private static let continueLine = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    private func appendBody(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard exchange != nil else { return }
        if exchange!.body.count + bytes.count > exchange!.bodyLimit {
            refuse(.contentTooLarge, message: "body larger than \(exchange!.bodyLimit) bytes")
            return
        }
        // Mutated in place through the optional, so the body is never copied while it grows.
        exchange!.body.append(contentsOf: bytes)
    }

    /// The request is complete: run its handler on the loop or the worker pool.
    private func dispatch() {
        guard exchange != nil else { return }
        phase = .handler
        let body = exchange!.body
        exchange!.body = []
        let client =
            fromTrustedProxy
            ? context.trustedProxies.client(ofRequestFrom: remoteAddress, peerHost: self.client.host, headers: exchange!.head.headers)
            : self.client
        if fromTrustedProxy { exchange!.forwardedClient = client.host }
        let request = HTTPRequest(
            method: exchange!.head.method, target: exchange!.head.target, rawPath: exchange!.rawPath, path: exchange!.path,
            query: exchange!.query, version: exchange!.head.version, headers: exchange!.head.headers, body: body,
            pathParameters: exchange!.resolution.parameters, requestID: exchange!.requestID, remoteAddress: remoteAddress,
            client: client, listenAddress: loop.listenAddress
        )
        let handler = exchange!.resolution.handler
        let context = self.context
        if exchange!.resolution.runsOnEventLoop || exchange!.resolution.eventLoopBodyLimit.map({ body.count <= $0 }) == true {
            let response = Connection.respond(to: request, with: handler, context: context)
            send(response)
            return
        }
        let mailbox = loop.mailbox
        let id = self.id
        let submitted = context.workers.submit {
            let response = Connection.respond(to: request, with: handler, context: context)
            mailbox.post(.response(id, response))
        }
        if !submitted {
            context.metrics?.refusedBusy.wrappingAdd(1, ordering: .relaxed)
            keepAlive = false
            var response = context.routes.errorResponse(
                ServerError(
                    status: .serviceUnavailable, message: "server busy, try again", requestID: request.requestID, rawPath: request.rawPath))
            response.headers["Retry-After"] = "1"
            send(response)
        }
    }

    /// Runs a handler (and compresses its answer): the part of a request that may run on a worker.
    static func respond(to request: HTTPRequest, with handler: HTTPHandler, context: ServerContext) -> HTTPResponse {
        var response = invoke(handler, for: request) { error in
            context.logger.error("handler failed: \(error)", metadata: ["request-id": .string(request.requestID)])
        }
        let configuration = context.configuration
        let acceptEncoding = request.headers["Accept-Encoding"]
        if case .pending(let pending) = response.body {
            // The answer comes later, from another thread: finish it there as it would be here.
            pending.prepare(
                PendingResponse.Finishing(headers: response.headers) { response in
                    ResponseCompression.apply(
                        to: &response, acceptEncoding: acceptEncoding, minimumBytes: configuration.gzipMinimumBytes,
                        level: configuration.gzipLevel)
                })
            return response
        }
        ResponseCompression.apply(
            to: &response, acceptEncoding: acceptEncoding,
            minimumBytes: configuration.gzipMinimumBytes, level: configuration.gzipLevel
        )
        return response
    }

    /// Answers a request that cannot be served (malformed, too large, timed out) and closes.
    /// - Parameter rawPath: The request's path when the exchange has not begun (a head that
    ///   could not be parsed); else the exchange's.
    func refuse(_ status: HTTPStatus, message: String, rawPath: String? = nil) {
        keepAlive = false
        lingerWhenFlushed = true
        if exchange == nil {
            let head = HTTPRequestHead(
                method: HTTPMethod("-"), target: "-", version: .http1_1, headers: HTTPHeaders(),
                framing: .none, keepAlive: false, expectation: .none
            )
            exchange = Exchange(
                head: head, rawPath: "-", path: "-", query: "",
                resolution: RouteTable.Resolution(
                    handler: { _ in .error(status) }, runsOnEventLoop: true, maxBodyBytes: nil, parameters: PathParameters()),
                bodyLimit: 0, requestID: loop.requestIDs.id(reusing: nil), started: CLinux_monotonic_ns()
            )
        }
        phase = .handler
        let path = exchange!.head.method.rawValue == "-" ? rawPath : exchange!.rawPath
        send(context.routes.errorResponse(ServerError(status: status, message: message, requestID: exchange!.requestID, rawPath: path)))
    }

    /// The path of the request line at the start of `input`, if a whole one is there: what a
    /// head too large or malformed to parse still says about where it was going.
    static func requestPath(in input: UnsafeBufferPointer<UInt8>) -> String? {
        var start = 0
        while start + 1 < input.count, input[start] == ByteClass.cr, input[start + 1] == ByteClass.lf { start += 2 }
        guard let firstSpace = input[start...].prefix(32).firstIndex(of: UInt8(ascii: " ")) else { return nil }
        let targetStart = firstSpace + 1
        var end = targetStart
        while end < input.count, end - targetStart < 8192 {
            let byte = input[end]
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "?") || byte == ByteClass.cr || byte == ByteClass.lf { break }
            end += 1
        }
        guard end < input.count, end > targetStart, input[targetStart] == UInt8(ascii: "/") else { return nil }
        return String(decoding: UnsafeBufferPointer(rebasing: input[targetStart..<end]), as: UTF8.self)
    }

    // MARK: - Closing

    func close() {
        guard !isClosed else { return }
        phase = .closed
        Glibc.close(descriptor)
        loop.connectionClosed(self)
        outbound.removeAll()
        inbox = []
        if let stream {
            self.stream = nil
            stream.channel.clientDisconnected()
        }
        if let pending {
            self.pending = nil
            pending.cancel()
        }
        if exchange != nil, exchange!.status == 0, exchange!.head.method.rawValue != "-" {
            logAccess(status: "-")
        }
        exchange = nil
    }

    /// Half-closes and discards input for a moment before closing (see `Phase.lingering`).
    func linger() {
        guard !isClosed else { return }
        shutdown(descriptor, Int32(SHUT_WR))
        phase = .lingering
        deadline = loop.now + 2_000_000_000
        inbox = []
        updateInterest()
    }
}
