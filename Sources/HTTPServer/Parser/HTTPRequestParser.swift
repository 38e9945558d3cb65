#if canImport(Glibc)
    import Glibc
#endif

/// A strict, incremental HTTP/1.1 request parser (RFC 9112): a state machine over bytes that
/// never copies the input and allocates only the strings of a request head.
///
/// Feed it the bytes not yet consumed, starting where the last call left off; it reports one
/// event and how many bytes it consumed. Bytes it did not consume must be passed again (with
/// more appended) on the next call. After `.end` it is ready for the next request on the same
/// connection; after `.failure` it stays failed.
///
/// ```swift
/// var parser = HTTPRequestParser(maxHeaderBytes: 16 * 1024)
/// let (event, consumed) = bytes.withUnsafeBufferPointer { parser.parse($0) }
/// ```
public struct HTTPRequestParser: Sendable {
    /// What one call to `parse(_:)` found.
    public enum Event: Sendable {
        /// Nothing to report. Drop the consumed bytes (framing, such as a chunk-size line) and
        /// call again: with the rest of the input if some bytes were consumed, else with more.
        case needMore
        /// A complete request head.
        case head(HTTPRequestHead)
        /// Body bytes: this range of the input given to the call (already de-chunked).
        case body(Range<Int>)
        /// The end of the current request's body (sent even when there is no body).
        case end
        /// The request is malformed; answer with `error.status` and close the connection.
        case failure(HTTPParseError)
    }

    private enum State: Sendable {
        case head
        case fixedBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case endPending
        case failed(HTTPParseError)
    }

    /// The largest request line plus header section accepted (and the largest trailer section).
    public let maxHeaderBytes: Int

    private var state: State = .head
    /// The head decoded last on this connection, whose strings the next head takes again where
    /// its bytes are the same.
    private var previousHead: HTTPRequestHead?
    // Progress of a line scan over bytes not yet consumed, so trickled input costs linear time.
    private var scanned = 0
    private var lineStart = 0
    private var headStart = 0

    /// The longest chunk-size line accepted, extensions included.
    static let maxChunkLineBytes = 4096
    /// How many empty lines may precede a request line (RFC 9112 §2.2 lets servers skip some).
    static let maxLeadingEmptyLines = 8

    /// Creates a parser.
    /// - Parameter maxHeaderBytes: The limit for the request line plus headers; beyond it the
    ///   parser fails with `.headersTooLarge` (431).
    public init(maxHeaderBytes: Int = 16 * 1024) {
        self.maxHeaderBytes = maxHeaderBytes
    }

    /// Whether the parser is between requests with nothing of the next one seen yet.
    public var isIdle: Bool {
        if case .head = state { return scanned == 0 }
        return false
    }

    /// Whether the parser is inside a request head.
    public var isReadingHead: Bool {
        if case .head = state { return true }
        return false
    }

    /// Parses as far as one event.
    /// - Parameter input: The bytes not consumed so far.
    /// - Returns: The event and how many bytes of `input` it consumed.
    public mutating func parse(_ input: UnsafeBufferPointer<UInt8>) -> (event: Event, consumed: Int) {
        switch state {
        case .head:
            return parseHead(input)
        case .fixedBody(let remaining):
            guard !input.isEmpty else { return (.needMore, 0) }
            let take = min(remaining, input.count)
            state = remaining == take ? .endPending : .fixedBody(remaining: remaining - take)
            return (.body(0..<take), take)
        case .chunkSize:
            return parseChunkSize(input)
        case .chunkData(let remaining):
            guard !input.isEmpty else { return (.needMore, 0) }
            let take = min(remaining, input.count)
            state = remaining == take ? .chunkDataEnd : .chunkData(remaining: remaining - take)
            return (.body(0..<take), take)
        case .chunkDataEnd:
            guard input.count >= 2 else {
                if input.count == 1 && input[0] != ByteClass.cr { return fail(.invalidChunkTerminator) }
                return (.needMore, 0)
            }
            guard input[0] == ByteClass.cr, input[1] == ByteClass.lf else { return fail(.invalidChunkTerminator) }
            state = .chunkSize
            return (.needMore, 2)
        case .trailers:
            return parseTrailers(input)
        case .endPending:
            state = .head
            resetScan()
            return (.end, 0)
        case .failed(let error):
            return (.failure(error), 0)
        }
    }

    /// Parses a byte array as far as one event (for tests and tools).
    public mutating func parse(_ bytes: [UInt8]) -> (event: Event, consumed: Int) {
        bytes.withUnsafeBufferPointer { parse($0) }
    }

    // MARK: - Head

    private mutating func parseHead(_ input: UnsafeBufferPointer<UInt8>) -> (event: Event, consumed: Int) {
        var index = scanned
        let count = input.count
        guard let base = input.baseAddress else { return (.needMore, 0) }
        while index < count {
            // Only bytes before the limit are looked at, so the outcome never depends on how
            // the input was split. Line ends are found with `memchr`: a head is hundreds of
            // bytes and a dozen lines.
            let limit = min(count, headStart + maxHeaderBytes)
            if index >= limit { return fail(.headersTooLarge) }
            guard let found = memchr(base + index, Int32(ByteClass.lf), limit - index) else {
                index = limit
                continue
            }
            index = UnsafeRawPointer(found) - UnsafeRawPointer(base)
            if index == 0 || input[index - 1] != ByteClass.cr { return fail(.bareLF) }
            if index - lineStart == 1 {
                if lineStart == headStart {
                    // An empty line before the request line: skip it.
                    headStart = index + 1
                    if headStart > 2 * HTTPRequestParser.maxLeadingEmptyLines { return fail(.invalidRequestLine) }
                } else {
                    let end = index + 1
                    switch HeadDecoder.decode(input, from: headStart, to: end, reusing: previousHead) {
                    case .success(let head):
                        previousHead = head
                        state = HTTPRequestParser.bodyState(for: head.framing)
                        resetScan()
                        return (.head(head), end)
                    case .failure(let error):
                        return fail(error)
                    }
                }
            }
            lineStart = index + 1
            index += 1
        }
        scanned = index
        return (.needMore, 0)
    }

    private static func bodyState(for framing: HTTPRequestHead.Framing) -> State {
        switch framing {
        case .none, .length(0): .endPending
        case .length(let length): .fixedBody(remaining: length)
        case .chunked: .chunkSize
        }
    }

    // MARK: - Chunks

    private mutating func parseChunkSize(_ input: UnsafeBufferPointer<UInt8>) -> (event: Event, consumed: Int) {
        var index = scanned
        let count = input.count
        while index < count {
            if input[index] == ByteClass.lf {
                guard index > 0, input[index - 1] == ByteClass.cr else { return fail(.bareLF) }
                guard let size = HTTPRequestParser.chunkSize(input, upTo: index - 1) else { return fail(.invalidChunkSize) }
                resetScan()
                if size == 0 {
                    state = .trailers
                    return (.needMore, index + 1)
                }
                state = .chunkData(remaining: size)
                return (.needMore, index + 1)
            }
            index += 1
            if index > HTTPRequestParser.maxChunkLineBytes { return fail(.invalidChunkSize) }
        }
        scanned = index
        return (.needMore, 0)
    }

    /// The size in a chunk-size line `input[0..<end]`: 1–15 hex digits, then optionally
    /// whitespace and `;` extensions.
    private static func chunkSize(_ input: UnsafeBufferPointer<UInt8>, upTo end: Int) -> Int? {
        var size = 0
        var index = 0
        while index < end, let digit = ByteClass.hexValue(input[index]) {
            size = size << 4 | digit
            index += 1
            if index > 15 { return nil }
        }
        guard index > 0 else { return nil }
        if index == end { return size }
        while index < end, input[index] == ByteClass.space || input[index] == ByteClass.tab { index += 1 }
        guard index < end, input[index] == UInt8(ascii: ";") else { return nil }
        while index < end {
            guard ByteClass.chunkExtension[Int(input[index])] else { return nil }
            index += 1
        }
        return size
    }

    private mutating func parseTrailers(_ input: UnsafeBufferPointer<UInt8>) -> (event: Event, consumed: Int) {
        var index = scanned
        let count = input.count
        while index < count {
            if input[index] == ByteClass.lf {
                guard index > 0, input[index - 1] == ByteClass.cr else { return fail(.bareLF) }
                if index - lineStart == 1 {
                    state = .head
                    resetScan()
                    return (.end, index + 1)
                }
                if let error = HeadDecoder.validateFieldLine(input, from: lineStart, to: index - 1) { return fail(error) }
                lineStart = index + 1
            }
            index += 1
            if index > maxHeaderBytes { return fail(.headersTooLarge) }
        }
        scanned = index
        return (.needMore, 0)
    }

    // MARK: - Scan state

    private mutating func resetScan() {
        scanned = 0
        lineStart = 0
        headStart = 0
    }

    private mutating func fail(_ error: HTTPParseError) -> (event: Event, consumed: Int) {
        state = .failed(error)
        return (.failure(error), 0)
    }
}
