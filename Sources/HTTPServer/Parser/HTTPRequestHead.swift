/// The request line and header fields of a request, with the framing derived from them.
public struct HTTPRequestHead: Sendable {
    /// How the body is delimited.
    public enum Framing: Sendable, Equatable {
        /// No body.
        case none
        /// Exactly this many bytes (`Content-Length`).
        case length(Int)
        /// `Transfer-Encoding: chunked`.
        case chunked
    }

    /// What an `Expect` header asks for.
    public enum Expectation: Sendable, Equatable {
        /// No `Expect` header.
        case none
        /// `Expect: 100-continue`.
        case continue100
        /// Any other expectation, which the server answers with 417.
        case unsupported
    }

    /// The method token.
    public var method: HTTPMethod
    /// The request-target as sent.
    public var target: String
    /// The protocol version.
    public var version: HTTPVersion
    /// The header fields.
    public var headers: HTTPHeaders
    /// How the body is delimited.
    public var framing: Framing
    /// Whether the client wants the connection kept open after the response.
    public var keepAlive: Bool
    /// What the `Expect` header asks for.
    public var expectation: Expectation
}
