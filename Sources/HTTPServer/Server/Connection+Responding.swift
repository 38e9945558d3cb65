import CLinux
import Glibc
import Logging

extension Connection {
    // MARK: - Responses

    /// A handler's answer arrived from the worker pool or a `PendingResponse`.
    func handlerFinished(_ response: HTTPResponse) {
        guard phase == .handler || phase == .pending else { return }
        pending = nil
        send(response)
        if phase == .idle { processInbox() }
        updateInterest()
    }

    /// Queues the response to the current exchange and starts writing it.
    func send(_ response: HTTPResponse) {
        guard !isClosed, exchange != nil else { return }
        if case .pending(let pending) = response.body {
            guard phase != .pending, self.pending == nil else {
                send(.error(.internalServerError, message: "a pending response completed with another pending response"))
                return
            }
            if let ready = pending.bind(mailbox: loop.mailbox, connection: id) {
                send(ready)
                return
            }
            self.pending = pending
            phase = .pending
            deadline = loop.now + pending.timeout.nanoseconds
            return
        }

        let version = exchange!.head.version
        let isHead = exchange!.head.method == .head
        let status = response.status
        let headers = response.headers
        if let connection = headers["Connection"], headers.containsToken("close", in: "Connection") || connection.isEmpty {
            keepAlive = false
        }
        if loop.draining { keepAlive = false }

        var bodyBytes: [UInt8] = []
        var file: FileRegion?
        var streamChannel: StreamChannel?
        var heartbeat: (bytes: [UInt8], interval: Duration?)?
        var length: Int?
        switch response.body {
        case .empty: length = 0
        case .bytes(let bytes):
            bodyBytes = bytes
            length = bytes.count
        case .file(let region):
            file = region
            length = Int(region.length)
        case .stream(let responseStream):
            streamChannel = responseStream.channel
        case .eventStream(let events):
            streamChannel = events.channel
            heartbeat = (events.heartbeatBytes, events.heartbeatInterval)
        case .pending:
            preconditionFailure("handled above")
        }
        let sendsBody = !isHead && !status.forbidsBody
        let chunked = streamChannel != nil && version == .http1_1
        if streamChannel != nil && !chunked { keepAlive = false }

        // MARK: Head
        var out: [UInt8] = []
        out.reserveCapacity(320 + (bodyBytes.count <= 16 * 1024 && sendsBody ? bodyBytes.count : 0))
        out.append(contentsOf: Connection.statusLine(status))
        for field in headers where !Connection.isFramingField(field.name) {
            Connection.appendField(field.name, field.value, to: &out)
        }
        if let length {
            if !status.forbidsBody {
                out.append(contentsOf: Connection.contentLengthPrefix)
                out.append(contentsOf: String(length).utf8)
                out.append(contentsOf: Connection.crlf)
            }
        } else if chunked && !status.forbidsBody {
            out.append(contentsOf: Connection.chunkedLine)
        }
        out.append(contentsOf: loop.dateLine)
        Connection.appendField(context.configuration.requestIDHeader, exchange!.requestID, to: &out)
        if !keepAlive {
            out.append(contentsOf: Connection.closeLine)
        } else if version == .http1_0 {
            out.append(contentsOf: Connection.keepAliveLine)
        }
        out.append(contentsOf: Connection.crlf)

        exchange!.status = status.code
        // Counted before a byte leaves: a client that has its answer finds it counted. A
        // stream's time is that of its head.
        loop.requestCounters?.record(
            operation: exchange!.resolution.operation, status: status.code, nanoseconds: CLinux_monotonic_ns() &- exchange!.started)
        var sent = 0
        if sendsBody {
            exchange!.bodyBytes = length ?? 0
            if bodyBytes.count <= 16 * 1024 {
                out.append(contentsOf: bodyBytes)
                sent = outbound.send(out, to: descriptor)
            } else {
                outbound.append(out)
                outbound.append(bodyBytes)
            }
            if let file { outbound.append(file) }
        } else {
            sent = outbound.send(out, to: descriptor)
        }
        if sent > 0 { lastWriteProgress = loop.now }
        if outbound.byteCount > 0 && lastWriteProgress < loop.now { lastWriteProgress = loop.now }

        if let streamChannel, sendsBody {
            let interval = heartbeat.map { $0.interval?.nanoseconds ?? context.heartbeatInterval } ?? 0
            stream = ActiveStream(
                channel: streamChannel, chunked: chunked, heartbeat: heartbeat?.bytes,
                heartbeatInterval: max(interval, 1_000_000), nextHeartbeat: loop.now + interval
            )
            phase = .streaming
            let (early, finished) = streamChannel.bind(mailbox: loop.mailbox, connection: id)
            if !early.isEmpty { appendStreamBytes(early) }
            if finished {
                finishStream()
            } else {
                flush()
            }
            return
        }
        if let streamChannel {
            // HEAD, or a status without a body: the producer has nobody to write to.
            streamChannel.clientDisconnected()
        }
        exchangeFinished()
        flush()
    }

    /// The response is fully queued: log it, then get ready for the next request or close.
    func exchangeFinished() {
        if exchange != nil { logAccess(status: nil) }
        exchange = nil
        stream = nil
        if keepAlive && !readClosed && !loop.draining {
            phase = .idle
            deadline = loop.now + context.idleTimeout
        } else {
            phase = .handler  // nothing more is parsed; closed once the output is flushed
            closeWhenFlushed = true
        }
    }

    // MARK: - Streams

    func streamData(_ bytes: [UInt8]) {
        guard phase == .streaming, stream != nil else { return }
        appendStreamBytes(bytes)
        stream!.nextHeartbeat = loop.now + stream!.heartbeatInterval
        if outbound.byteCount > context.configuration.maxQueuedStreamBytes {
            context.logger.warning("dropping a client that does not read its stream", metadata: ["remote": .string(remoteAddress)])
            close()
            return
        }
        flush()
        updateInterest()
    }

    func streamEnded() {
        guard phase == .streaming, stream != nil else { return }
        finishStream()
        if phase == .idle { processInbox() }
        updateInterest()
    }

    private func appendStreamBytes(_ bytes: [UInt8]) {
        guard let stream, !bytes.isEmpty else { return }
        exchange?.bodyBytes += bytes.count
        if stream.chunked {
            outbound.append(Array((String(bytes.count, radix: 16) + "\r\n").utf8))
            outbound.append(bytes)
            outbound.append(Connection.crlf)
        } else {
            outbound.append(bytes)
        }
        if lastWriteProgress < loop.now { lastWriteProgress = loop.now }
    }

    private func finishStream() {
        guard let stream else { return }
        if stream.chunked {
            outbound.append(Connection.lastChunk)
        } else {
            keepAlive = false
        }
        exchangeFinished()
        flush()
    }

    // MARK: - Writing

    /// Writes queued output; closes when asked to and everything is out.
    func flush() {
        guard !isClosed else { return }
        if !outbound.isEmpty {
            let (result, sent) = outbound.write(to: descriptor)
            if sent > 0 { lastWriteProgress = loop.now }
            if case .failed = result {
                close()
                return
            }
        }
        if outbound.isEmpty {
            stream?.channel.drained()
            if closeWhenFlushed {
                if lingerWhenFlushed && !readClosed { linger() } else { close() }
                return
            }
        }
        updateInterest()
    }

    // MARK: - Timers and shutdown

    /// Applies the timeout of the current phase; sends heartbeats.
    func checkTimers() {
        let now = loop.now
        switch phase {
        case .idle, .lingering:
            if now >= deadline { close() }
        case .head:
            if now >= deadline {
                if parser.isIdle && inbox.isEmpty { close() } else { refuse(.requestTimeout, message: "request head not received in time") }
            }
        case .body:
            if now >= deadline { refuse(.requestTimeout, message: "request body not received in time") }
        case .pending:
            if now >= deadline, let pending, let response = pending.expire() {
                self.pending = nil
                phase = .handler
                send(response)
                if phase == .idle { processInbox() }
                updateInterest()
            }
        case .streaming:
            if let heartbeat = stream?.heartbeat, now >= stream!.nextHeartbeat, outbound.isEmpty {
                stream!.nextHeartbeat = now + stream!.heartbeatInterval
                appendStreamBytes(heartbeat)
                flush()
            }
        case .handler, .closed:
            break
        }
        if !isClosed && !outbound.isEmpty && now > lastWriteProgress && now - lastWriteProgress > context.writeTimeout {
            close()
        }
    }

    /// The server is shutting down: finish the current exchange, then close.
    func beginDraining() {
        keepAlive = false
        switch phase {
        case .idle:
            close()
        case .head:
            if parser.isIdle && inbox.isEmpty { close() }
        case .pending:
            // Work that will finish (a write) is waited for, within the grace period.
            if let pending, !pending.waitsThroughShutdown, let response = pending.expire() {
                self.pending = nil
                phase = .handler
                send(response)
            }
        case .streaming:
            if stream?.heartbeat != nil { stream?.channel.finish() }
        default:
            break
        }
    }

    // MARK: - Access log

    /// Logs the current exchange: `peer "METHOD target VERSION" status bytes duration request-id`.
    func logAccess(status: String?) {
        guard let logger = context.accessLogger, logger.logLevel <= .info, exchange != nil else { return }
        let micros = (CLinux_monotonic_ns() &- exchange!.started) / 1000
        // This runs for every request: with the usual handler the line is written straight
        // into its writer's buffer; any other handler gets it as a message.
        if let direct = context.accessLogWriter {
            direct.writer.writeEntry(level: Logger.Level.info.rawValue, label: direct.label, urgent: false) { line in
                appendAccessLine(status: status, micros: micros, to: &line)
            }
            return
        }
        var line: [UInt8] = []
        line.reserveCapacity(64 + remoteAddress.utf8.count + exchange!.head.target.utf8.count + exchange!.requestID.utf8.count)
        appendAccessLine(status: status, micros: micros, to: &line)
        logger.info(Logger.Message(stringLiteral: String(decoding: line, as: UTF8.self)), source: "HTTPServer")
    }

    private func appendAccessLine(status: String?, micros: UInt64, to line: inout [UInt8]) {
        if let forwarded = exchange!.forwardedClient {
            // `203.0.113.7 via 127.0.0.1:41234`: the client, then the proxy it came through.
            line.append(contentsOf: forwarded.utf8)
            line.append(contentsOf: " via ".utf8)
        }
        line.append(contentsOf: remoteAddress.utf8)
        line.append(contentsOf: " \"".utf8)
        line.append(contentsOf: exchange!.head.method.rawValue.utf8)
        line.append(UInt8(ascii: " "))
        LogRedaction.append(
            target: exchange!.head.target, pathPrefixes: context.redactedPathPrefixes, names: context.redactedQueryParameters, to: &line)
        line.append(contentsOf: (exchange!.head.version == .http1_1 ? " HTTP/1.1\" " : " HTTP/1.0\" ").utf8)
        if let status { line.append(contentsOf: status.utf8) } else { Self.appendDecimal(UInt64(exchange!.status), to: &line) }
        line.append(UInt8(ascii: " "))
        Self.appendDecimal(UInt64(max(0, exchange!.bodyBytes)), to: &line)
        line.append(UInt8(ascii: " "))
        Self.appendDecimal(micros, to: &line)
        line.append(contentsOf: "us ".utf8)
        line.append(contentsOf: exchange!.requestID.utf8)
    }

    /// Appends `value` in decimal, without making a string of it.
    static func appendDecimal(_ value: UInt64, to line: inout [UInt8]) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { buffer in
            var start = buffer.count
            var rest = value
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest != 0
            line.append(contentsOf: buffer[start...])
        }
    }

    // MARK: - Serialization

    static let crlf: [UInt8] = [0x0D, 0x0A]
    static let contentLengthPrefix = Array("Content-Length: ".utf8)
    static let chunkedLine = Array("Transfer-Encoding: chunked\r\n".utf8)
    static let closeLine = Array("Connection: close\r\n".utf8)
    static let keepAliveLine = Array("Connection: keep-alive\r\n".utf8)
    static let lastChunk = Array("0\r\n\r\n".utf8)
    private static let commonStatusLines: [Int: [UInt8]] = {
        var lines: [Int: [UInt8]] = [:]
        for code in [200, 201, 204, 206, 301, 302, 303, 304, 307, 400, 401, 403, 404, 405, 408, 409, 413, 416, 429, 431, 500, 501, 503] {
            lines[code] = Array("HTTP/1.1 \(code) \(HTTPStatus.standardReason(for: code))\r\n".utf8)
        }
        return lines
    }()

    static func statusLine(_ status: HTTPStatus) -> [UInt8] {
        if status.reasonPhrase == HTTPStatus.standardReason(for: status.code), let line = commonStatusLines[status.code] { return line }
        return Array("HTTP/1.1 \(status.code) \(sanitized(status.reasonPhrase))\r\n".utf8)
    }

    /// Whether the server sets this field itself (handlers' values are dropped).
    static func isFramingField(_ name: String) -> Bool {
        switch name.utf8.count {
        case 10: HTTPHeaders.namesEqual(name, "Connection")
        case 14: HTTPHeaders.namesEqual(name, "Content-Length")
        case 17: HTTPHeaders.namesEqual(name, "Transfer-Encoding")
        default: false
        }
    }

    /// Appends `name: value` CRLF, replacing CR, LF and NUL so a handler can never split the response.
    static func appendField(_ name: String, _ value: String, to out: inout [UInt8]) {
        if needsCleaning(name, colonToo: true) {
            for byte in name.utf8 { out.append(byte == 0x0D || byte == 0x0A || byte == 0 || byte == 0x3A ? 0x5F : byte) }
        } else {
            out.append(contentsOf: name.utf8)
        }
        out.append(0x3A)
        out.append(0x20)
        if needsCleaning(value, colonToo: false) {
            for byte in value.utf8 { out.append(byte == 0x0D || byte == 0x0A || byte == 0 ? 0x20 : byte) }
        } else {
            out.append(contentsOf: value.utf8)
        }
        out.append(0x0D)
        out.append(0x0A)
    }

    /// Whether `text` holds CR, LF or NUL (or a colon, for names). Scans contiguous UTF-8 directly.
    @inline(__always)
    private static func needsCleaning(_ text: String, colonToo: Bool) -> Bool {
        let scan = { (bytes: UnsafeBufferPointer<UInt8>) -> Bool in
            // Eight bytes at a time: a response's fields carry tokens of a hundred bytes.
            let raw = UnsafeRawBufferPointer(bytes)
            var index = 0
            while index + 8 <= raw.count {
                let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                if ByteClass.word(word, holds: 0x0D) || ByteClass.word(word, holds: 0x0A) || ByteClass.word(word, holds: 0)
                    || (colonToo && ByteClass.word(word, holds: 0x3A))
                {
                    return true
                }
                index += 8
            }
            while index < raw.count {
                let byte = raw[index]
                if byte == 0x0D || byte == 0x0A || byte == 0 || (colonToo && byte == 0x3A) { return true }
                index += 1
            }
            return false
        }
        if let found = text.utf8.withContiguousStorageIfAvailable(scan) { return found }
        var copy = text
        return copy.withUTF8(scan)
    }

    private static func sanitized(_ text: String) -> String {
        String(text.map { $0 == "\r" || $0 == "\n" ? " " : $0 })
    }
}
