#if canImport(Glibc)
    import Glibc
#endif

/// Decodes a complete request head (request line, header lines, final empty line) whose lines
/// are already known to end in CRLF.
enum HeadDecoder {
    /// Decodes `input[start..<end]`, where `end` is just past the final empty line's LF.
    /// - Parameter previous: The head decoded before on the same connection: its target and
    ///   each of its fields are taken again where this head's bytes are the same, instead of
    ///   making new strings (a client sends mostly the same head every time).
    static func decode(
        _ input: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, reusing previous: HTTPRequestHead? = nil
    ) -> Result<HTTPRequestHead, HTTPParseError> {
        // The tables are globals, initialised once: read through locals, the loops below do not
        // ask on every byte whether they are.
        let token = ByteClass.token, targetBytes = ByteClass.target
        // MARK: Request line
        var index = start
        let methodStart = index
        while index < end, token[Int(input[index])] { index += 1 }
        guard index > methodStart else { return .failure(.invalidMethod) }
        guard index < end, input[index] == ByteClass.space else {
            return .failure(token[Int(input[index])] || input[index] == ByteClass.cr ? .invalidRequestLine : .invalidMethod)
        }
        let method = HTTPMethod(string(input, methodStart, index))
        index += 1

        let targetStart = index
        index = visibleRun(input, from: index, to: end)
        while index < end, targetBytes[Int(input[index])] { index += 1 }
        guard index > targetStart else { return .failure(.invalidRequestLine) }
        guard input[index] == ByteClass.space else { return .failure(.invalidTarget) }
        let targetEnd = index
        guard isAcceptableTarget(input, targetStart, targetEnd, method: method) else { return .failure(.invalidTarget) }
        let target = string(input, targetStart, targetEnd, sameAs: previous?.target)
        index += 1

        // Exactly "HTTP/1.1" or "HTTP/1.0" then CRLF.
        guard end - index >= 10 else { return .failure(.invalidVersion) }
        let version: HTTPVersion
        if matches(input, index, "HTTP/1.1") {
            version = .http1_1
        } else if matches(input, index, "HTTP/1.0") {
            version = .http1_0
        } else {
            return .failure(.invalidVersion)
        }
        index += 8
        guard input[index] == ByteClass.cr, input[index + 1] == ByteClass.lf else { return .failure(.invalidVersion) }
        index += 2

        // MARK: Header lines
        var headers = HTTPHeaders(capacity: 12)
        var contentLength: Int?
        var sawContentLength = false
        var transferCodings: [Substring] = []
        var sawTransferEncoding = false
        var hostCount = 0
        var connectionClose = false
        var connectionKeepAlive = false
        var expectation = HTTPRequestHead.Expectation.none

        let headerEnd = end - 2  // the final empty line
        while index < headerEnd {
            // Every line ends in CRLF (the parser checked), so a CR is found before `end`.
            let lineEnd =
                UnsafeRawPointer(memchr(input.baseAddress! + index, Int32(ByteClass.cr), end - index)!)
                - UnsafeRawPointer(input.baseAddress!)
            guard input[lineEnd + 1] == ByteClass.lf else { return .failure(.invalidHeaderValue) }
            let before = previous.flatMap { $0.headers.count > headers.count ? $0.headers.fields[headers.count] : nil }
            guard let field = decodeField(input, from: index, to: lineEnd, sameAs: before) else {
                return .failure(fieldError(input, from: index, to: lineEnd))
            }
            switch field.kind {
            case .contentLength:
                sawContentLength = true
                // One plain number, as nearly every client sends, is read from the bytes; a
                // list (`5, 5`) is split as text below.
                if let value = parseDecimal(input, field.valueStart, field.valueEnd) {
                    if let existing = contentLength, existing != value { return .failure(.conflictingContentLength) }
                    contentLength = value
                    break
                }
                for part in field.value.split(separator: ",", omittingEmptySubsequences: false) {
                    guard let value = parseDecimal(part.trimmingHTTPWhitespace()) else { return .failure(.invalidContentLength) }
                    if let existing = contentLength, existing != value { return .failure(.conflictingContentLength) }
                    contentLength = value
                }
            case .transferEncoding:
                sawTransferEncoding = true
                for part in field.value.split(separator: ",", omittingEmptySubsequences: false) {
                    transferCodings.append(part.trimmingHTTPWhitespace())
                }
            case .host:
                hostCount += 1
            case .connection:
                for part in field.value.split(separator: ",") {
                    let token = part.trimmingHTTPWhitespace()
                    if HTTPHeaders.namesEqual(token, "close") { connectionClose = true }
                    if HTTPHeaders.namesEqual(token, "keep-alive") { connectionKeepAlive = true }
                }
            case .expect:
                let value = field.value.trimmingHTTPWhitespace()
                if HTTPHeaders.namesEqual(value, "100-continue") {
                    expectation = .continue100
                } else {
                    expectation = .unsupported
                }
            case .other:
                break
            }
            headers.add(name: field.name, value: field.value)
            index = lineEnd + 2
        }

        // MARK: Framing (RFC 9112 §6)
        if version == .http1_1 ? hostCount != 1 : hostCount > 1 { return .failure(.invalidHost) }
        let framing: HTTPRequestHead.Framing
        if sawTransferEncoding {
            if sawContentLength { return .failure(.contentLengthWithTransferEncoding) }
            if version == .http1_0 { return .failure(.invalidTransferEncoding) }
            guard let last = transferCodings.last, HTTPHeaders.namesEqual(last, "chunked") else {
                return .failure(.invalidTransferEncoding)
            }
            for coding in transferCodings.dropLast() {
                if HTTPHeaders.namesEqual(coding, "chunked") || coding.isEmpty { return .failure(.invalidTransferEncoding) }
                return .failure(.unsupportedTransferEncoding)
            }
            framing = .chunked
        } else if let contentLength {
            framing = contentLength == 0 ? .none : .length(contentLength)
        } else {
            framing = .none
        }

        let keepAlive = version == .http1_1 ? !connectionClose : (connectionKeepAlive && !connectionClose)
        return .success(
            HTTPRequestHead(
                method: method, target: target, version: version, headers: headers,
                framing: framing, keepAlive: keepAlive, expectation: expectation
            ))
    }

    /// Checks one field line `input[start..<end]` (CR excluded); returns the error, or nil.
    static func validateFieldLine(_ input: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> HTTPParseError? {
        decodeField(input, from: start, to: end, decodeStrings: false) == nil ? fieldError(input, from: start, to: end) : nil
    }

    // MARK: - Fields

    enum FieldKind {
        case contentLength, transferEncoding, host, connection, expect, other
    }

    struct Field {
        var name: String
        var value: String
        var kind: FieldKind
        /// Where the value lies in the input.
        var valueStart = 0, valueEnd = 0
    }

    /// Decodes `name: value` from `input[start..<end]` (CR excluded); nil if malformed.
    /// - Parameter before: The field at the same place in the connection's previous head.
    private static func decodeField(
        _ input: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, decodeStrings: Bool = true,
        sameAs before: HTTPHeaders.Field? = nil
    ) -> Field? {
        let token = ByteClass.token, fieldValue = ByteClass.fieldValue
        var index = start
        while index < end, token[Int(input[index])] { index += 1 }
        guard index > start, index < end, input[index] == ByteClass.colon else { return nil }
        let nameEnd = index
        index += 1
        while index < end, input[index] == ByteClass.space || input[index] == ByteClass.tab { index += 1 }
        let valueStart = index
        var valueEnd = valueStart
        while index < end {
            let byte = input[index]
            guard fieldValue[Int(byte)] else { return nil }
            index += 1
            if byte != ByteClass.space && byte != ByteClass.tab { valueEnd = index }
        }
        guard decodeStrings else { return Field(name: "", value: "", kind: .other) }
        let kind = fieldKind(input, start, nameEnd)
        return Field(
            name: string(input, start, nameEnd, sameAs: before?.name), value: string(input, valueStart, valueEnd, sameAs: before?.value),
            kind: kind, valueStart: valueStart,
            valueEnd: valueEnd)
    }

    /// Which error a malformed field line gets.
    private static func fieldError(_ input: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> HTTPParseError {
        if start < end, input[start] == ByteClass.space || input[start] == ByteClass.tab { return .obsoleteLineFolding }
        var index = start
        while index < end, ByteClass.token[Int(input[index])] { index += 1 }
        if index == start || index == end || input[index] != ByteClass.colon { return .invalidHeaderName }
        return .invalidHeaderValue
    }

    private static func fieldKind(_ input: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> FieldKind {
        switch end - start {
        case 4: matchesIgnoringCase(input, start, "host") ? .host : .other
        case 6: matchesIgnoringCase(input, start, "expect") ? .expect : .other
        case 10: matchesIgnoringCase(input, start, "connection") ? .connection : .other
        case 14: matchesIgnoringCase(input, start, "content-length") ? .contentLength : .other
        case 17: matchesIgnoringCase(input, start, "transfer-encoding") ? .transferEncoding : .other
        default: .other
        }
    }

    // MARK: - Request target

    /// origin-form (`/path?query`), absolute-form (`http://host/path`), or `*` for OPTIONS.
    private static func isAcceptableTarget(_ input: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, method: HTTPMethod) -> Bool {
        let first = input[start]
        if first == UInt8(ascii: "/") { return true }
        if first == UInt8(ascii: "*") { return end - start == 1 && method == .options }
        if end - start > 7, matchesIgnoringCase(input, start, "http://") { return true }
        if end - start > 8, matchesIgnoringCase(input, start, "https://") { return true }
        return false
    }

    // MARK: - Bytes

    /// The offset of the first whole word of eight bytes at or after `start`, before `end`,
    /// holding a byte that is not visible ASCII (`0x21...0x7E`); the bytes before it are all
    /// visible. A target (credentials in its query) is often a few hundred bytes.
    private static func visibleRun(_ input: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int {
        guard let base = input.baseAddress else { return start }
        let raw = UnsafeRawPointer(base)
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        var index = start
        while index + 8 <= end {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            // A byte below 0x21 leaves its high bit set in `word - 0x21…` while clear in `word`;
            // a byte above 0x7E (0x7F, or any with the high bit) sets it in `word + 0x01…` or in `word`.
            let below = (word &- ones &* 0x21) & ~word & highs
            let above = ((word &+ ones) | word) & highs
            if below | above != 0 { break }
            index += 8
        }
        return index
    }

    @inline(__always)
    private static func string(_ input: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: input[start..<end]), as: UTF8.self)
    }

    /// `input[start..<end]` as text: `candidate` itself when it has exactly these bytes.
    private static func string(_ input: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, sameAs candidate: String?) -> String {
        if let candidate, candidate.utf8.count == end - start, end > start,
            candidate.utf8.withContiguousStorageIfAvailable({ memcmp($0.baseAddress!, input.baseAddress! + start, end - start) == 0 })
                == true
        {
            return candidate
        }
        return string(input, start, end)
    }

    private static func matches(_ input: UnsafeBufferPointer<UInt8>, _ start: Int, _ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard input.count - start >= count else { return false }
        let pointer = literal.utf8Start
        for offset in 0..<count where input[start + offset] != pointer[offset] { return false }
        return true
    }

    /// Compares with a lowercase ASCII literal, ignoring the case of letters in `input`.
    private static func matchesIgnoringCase(_ input: UnsafeBufferPointer<UInt8>, _ start: Int, _ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard input.count - start >= count else { return false }
        let pointer = literal.utf8Start
        for offset in 0..<count {
            var byte = input[start + offset]
            if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { byte |= 0x20 }
            if byte != pointer[offset] { return false }
        }
        return true
    }

    /// The non-negative decimal of at most 18 digits that is all of `input[start..<end]`, or nil.
    private static func parseDecimal(_ input: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int? {
        guard end > start, end - start <= 18 else { return nil }
        var value = 0
        for index in start..<end {
            let byte = input[index]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// The non-negative decimal of at most 18 digits that is all of `text`, or nil.
    private static func parseDecimal(_ text: Substring) -> Int? {
        var text = text
        return text.withUTF8 { parseDecimal($0, 0, $0.count) }
    }
}
