/// An HTTP response: status, header fields and a body.
///
/// The server adds the framing headers itself (`Content-Length` or `Transfer-Encoding`,
/// `Connection`, `Date` and the request id); values a handler sets for the framing headers are
/// replaced.
public struct HTTPResponse: Sendable {
    /// What the response carries after its head.
    public enum Body: Sendable {
        /// No body.
        case empty
        /// Bytes held in memory.
        case bytes([UInt8])
        /// A region of an open file, sent with sendfile(2); used by static files and ranges.
        case file(FileRegion)
        /// Bytes produced over time by any thread; sent chunked.
        case stream(ResponseStream)
        /// A server-sent-event stream; sent chunked as `text/event-stream` with heartbeats.
        case eventStream(EventStream)
        /// A response that is completed later (long-poll); no thread waits for it.
        case pending(PendingResponse)
    }

    /// The status.
    public var status: HTTPStatus
    /// The header fields.
    public var headers: HTTPHeaders
    /// The body.
    public var body: Body

    /// Creates a response.
    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), body: Body = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Creates a response holding `bytes`.
    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), bytes: [UInt8]) {
        self.init(status: status, headers: headers, body: .bytes(bytes))
    }
}
