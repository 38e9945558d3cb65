import HTTPServer
import Testing

/// Parses `text` completely, returning heads, bodies and the first failure.
private func parseAll(_ bytes: [UInt8], maxHeaderBytes: Int = 16 * 1024, step: Int? = nil) -> (
    heads: [HTTPRequestHead], bodies: [[UInt8]], failure: HTTPParseError?
) {
    var parser = HTTPRequestParser(maxHeaderBytes: maxHeaderBytes)
    var heads: [HTTPRequestHead] = []
    var bodies: [[UInt8]] = []
    var current: [UInt8] = []
    var pending: [UInt8] = []
    var fed = 0
    while true {
        // Feed `step` bytes at a time (or everything) to exercise incremental parsing.
        let chunk = step ?? bytes.count
        if fed < bytes.count {
            pending += bytes[fed..<min(bytes.count, fed + chunk)]
            fed = min(bytes.count, fed + chunk)
        }
        var progressed = false
        events: while true {
            let (event, consumed) = parser.parse(pending)
            switch event {
            case .needMore:
                pending.removeFirst(consumed)
                if consumed == 0 { break events }
                progressed = true
                continue
            case .head(let head): heads.append(head)
            case .body(let range): current += pending[range]
            case .end:
                bodies.append(current)
                current = []
            case .failure(let error): return (heads, bodies, error)
            }
            pending.removeFirst(consumed)
            progressed = true
        }
        if fed >= bytes.count && !progressed { return (heads, bodies, nil) }
    }
}

private func parseAll(_ text: String, step: Int? = nil) -> (heads: [HTTPRequestHead], bodies: [[UInt8]], failure: HTTPParseError?) {
    parseAll(Array(text.utf8), step: step)
}

@Suite struct ParserTests {
    /// Heads on one connection take the previous head's strings where their bytes are the same:
    /// each head reads exactly as it would alone, whatever came before it.
    @Test func aHeadLikeThePreviousOneReadsAsItWouldAlone() {
        let long = "/database/1/iCloud.com.example.App/development/public/records/lookup?ckAPIToken=0123456789abcdef"
        let heads = [
            "GET \(long) HTTP/1.1\r\nHost: example.com\r\nUser-Agent: a client with a long agent string/1.0\r\nAccept: application/json\r\n\r\n",
            // The same head again.
            "GET \(long) HTTP/1.1\r\nHost: example.com\r\nUser-Agent: a client with a long agent string/1.0\r\nAccept: application/json\r\n\r\n",
            // The same lengths, other bytes; a field more; the names in another case.
            "GET \(long.dropLast())X HTTP/1.1\r\nHost: example.org\r\nUser-Agent: a client with a long agent string/2.0\r\nAccept: application/jsoN\r\nX-Extra: 1\r\n\r\n",
            // Fields in another order, one fewer; an empty value where there was text.
            "GET \(long) HTTP/1.1\r\nAccept: application/json\r\nHOST: example.com\r\nX-Extra:\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n",
        ]
        let together = parseAll(heads.joined())
        #expect(together.failure == nil)
        let alone = heads.map { parseAll($0).heads.first }
        #expect(together.heads.count == heads.count)
        for (index, head) in together.heads.enumerated() {
            #expect(head.target == alone[index]?.target, "head \(index)")
            #expect(Array(head.headers) == Array(alone[index]?.headers ?? [:]), "head \(index)")
        }
        #expect(together.heads[2].target == String(long.dropLast()) + "X")
        #expect(together.heads[2].headers["host"] == "example.org" && together.heads[2].headers["accept"] == "application/jsoN")
        #expect(together.heads[3].headers.map(\.name) == ["Accept", "HOST", "X-Extra"] && together.heads[3].headers["x-extra"] == "")
    }

    @Test func aFieldWithTwoSpellingsIsFoundUnderEitherAndTheFirstSpellingWins() {
        let headers = HTTPHeaders([
            .init(name: "x-old", value: "old"), .init(name: "Other", value: "o"), .init(name: "X-NEW", value: "new"),
            .init(name: "x-new", value: "later"),
        ])
        #expect(headers.value("X-New", orElse: "X-Old") == "new")
        #expect(headers.value("X-Missing", orElse: "X-Old") == "old")
        #expect(headers.value("X-Missing", orElse: "X-Absent") == nil)
        #expect(HTTPHeaders().value("X-New", orElse: "X-Old") == nil)
    }

    @Test func parsesASimpleRequest() {
        let result = parseAll("GET /a/b?x=1 HTTP/1.1\r\nHost: h\r\nX-Thing:  v  \r\n\r\n")
        #expect(result.failure == nil)
        #expect(result.heads.count == 1)
        let head = result.heads[0]
        #expect(head.method == .get)
        #expect(head.target == "/a/b?x=1")
        #expect(head.version == .http1_1)
        #expect(head.headers["x-thing"] == "v")
        #expect(head.keepAlive)
        #expect(result.bodies == [[]])
    }

    @Test func parsesPipelinedRequestsByteByByte() {
        let text =
            "POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello"
            + "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nTrailer: x\r\n\r\n"
            + "GET /last HTTP/1.0\r\n\r\n"
        for step in [1, 2, 7, 1000] {
            let result = parseAll(text, step: step)
            #expect(result.failure == nil)
            #expect(result.heads.map(\.target) == ["/p", "/c", "/last"])
            #expect(result.bodies == [Array("hello".utf8), Array("abcde".utf8), []])
            #expect(result.heads[2].keepAlive == false)
        }
    }

    @Test(arguments: [
        (
            "GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
            HTTPParseError.contentLengthWithTransferEncoding
        ),
        ("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n", .conflictingContentLength),
        ("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 3, 4\r\n\r\n", .conflictingContentLength),
        ("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", .invalidContentLength),
        ("GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n b\r\n\r\n", .obsoleteLineFolding),
        ("GET / HTTP/1.1\r\nHost: h\r\nX: a\rb\r\n\r\n", .invalidHeaderValue),
        ("GET / HTTP/1.1\r\nHost: h\nX: a\r\n\r\n", .bareLF),
        ("GET / HTTP/1.1\r\nHost: h\r\nX : a\r\n\r\n", .invalidHeaderName),
        ("G@T / HTTP/1.1\r\nHost: h\r\n\r\n", .invalidMethod),
        ("GET / HTTP/1.2\r\nHost: h\r\n\r\n", .invalidVersion),
        ("GET / HTTP/1.1 \r\nHost: h\r\n\r\n", .invalidVersion),
        ("GET  / HTTP/1.1\r\nHost: h\r\n\r\n", .invalidRequestLine),
        ("GET / HTTP/1.1\r\n\r\n", .invalidHost),
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", .invalidHost),
        ("GET noslash HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget),
        ("GET / HTTP/1.1\r\nHost: h\r\nX: a\0b\r\n\r\n", .invalidHeaderValue),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", .unsupportedTransferEncoding),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: xchunked\r\n\r\n", .invalidTransferEncoding),
        ("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", .invalidTransferEncoding),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n", .invalidChunkTerminator),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n", .invalidChunkSize),
    ])
    func rejectsMalformedRequests(text: String, expected: HTTPParseError) {
        #expect(parseAll(text).failure == expected)
        #expect(parseAll(text, step: 1).failure == expected)
    }

    @Test func limitsTheHeaderSection() {
        let big = "GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "a", count: 20_000) + "\r\n\r\n"
        let result = parseAll(Array(big.utf8), maxHeaderBytes: 16 * 1024)
        #expect(result.failure == .headersTooLarge)
        #expect(result.failure?.status.code == 431)
        // Unterminated input also stops at the limit instead of buffering forever.
        let endless = "GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "a", count: 20_000)
        #expect(parseAll(Array(endless.utf8), maxHeaderBytes: 16 * 1024, step: 1000).failure == .headersTooLarge)
    }

    @Test func acceptsEqualRepeatedContentLengths() {
        let result = parseAll("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok")
        #expect(result.failure == nil)
        #expect(result.bodies == [Array("ok".utf8)])
    }

    @Test func readsExpectationsAndConnectionTokens() {
        let result = parseAll(
            "PUT / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nConnection: keep-alive, close\r\nContent-Length: 1\r\n\r\nx")
        #expect(result.heads.first?.expectation == .continue100)
        #expect(result.heads.first?.keepAlive == false)
    }
}

@Suite struct ParserTargetTests {
    @Test func everyByteOfATargetIsCheckedWhereverItSits() {
        // Targets of every length around the eight-byte words they are checked in, with one
        // byte that is not visible ASCII at each place: refused; without it: read whole.
        for length in 1...40 {
            let target = "/" + String((0..<length - 1).map { Character(UnicodeScalar(UInt8(0x21 + $0 % 94))) })
            let good = parseAll("GET \(target) HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(good.failure == nil && good.heads.first?.target == target, "\(target)")
            for position in 1..<length {
                for bad: UInt8 in [0x00, 0x09, 0x1F, 0x7F, 0x80, 0xC3, 0xFF] {
                    var bytes = Array("GET \(target) HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
                    bytes[4 + position] = bad
                    #expect(parseAll(bytes).failure == .invalidTarget, "\(target) with \(bad) at \(position)")
                }
            }
        }
    }
}

@Suite struct ParserLimitTests {
    /// Feeds `text` to a parser limited to `limit` header bytes, `step` bytes at a time, until it
    /// reports a head or a failure: `head N`, N the length of field `X`, or the failure.
    private static func firstOutcome(of text: String, limit: Int, step: Int) -> String? {
        var parser = HTTPRequestParser(maxHeaderBytes: limit)
        var buffer: [UInt8] = []
        let bytes = Array(text.utf8)
        var fed = 0
        while fed < bytes.count {
            buffer += bytes[fed..<min(bytes.count, fed + step)]
            fed = min(bytes.count, fed + step)
            let (event, consumed) = parser.parse(buffer)
            buffer.removeFirst(consumed)
            switch event {
            case .head(let head): return "head \(head.headers["X"]?.count ?? -1)"
            case .failure(let error): return "\(error)"
            default: break
            }
        }
        return nil
    }

    @Test func reportsTheLimitBeforeAnErrorPastIt() {
        // Found by fuzzing: the verdict must not depend on how the bytes arrive.
        let text = "GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "a", count: 3000) + "\nmore"
        for step in [1, 100, 100_000] {
            #expect(Self.firstOutcome(of: text, limit: 2048, step: step) == "\(HTTPParseError.headersTooLarge)")
        }
    }

    @Test func aHeadOfExactlyTheLimitParsesAndOneByteMoreDoesNot() {
        // The head's last LF may be the limit's last byte, whatever the pieces it arrives in,
        // and after blank lines before the request line too (the limit counts from the line).
        let limit = 512
        for leading in ["", "\r\n\r\n"] {
            for extra in [0, 1] {
                let fixed = "GET / HTTP/1.1\r\nHost: h\r\nX: \r\n\r\n".utf8.count
                let text = leading + "GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "a", count: limit - fixed + extra) + "\r\n\r\n"
                for step in [1, 7, 100_000] {
                    #expect(
                        Self.firstOutcome(of: text, limit: limit, step: step)
                            == (extra == 0 ? "head \(limit - fixed)" : "\(HTTPParseError.headersTooLarge)"),
                        "step \(step), leading \(leading.count)")
                }
            }
        }
    }
}
