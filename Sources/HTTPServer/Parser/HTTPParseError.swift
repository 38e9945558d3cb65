/// Why a request could not be parsed; each case maps to the status the server answers with
/// before closing the connection.
public enum HTTPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request line is not `method SP target SP version CRLF`.
    case invalidRequestLine
    /// The method is not a token.
    case invalidMethod
    /// The request-target has forbidden bytes or an unsupported form.
    case invalidTarget
    /// The version is not `HTTP/1.1` or `HTTP/1.0`.
    case invalidVersion
    /// A line ended in LF without CR.
    case bareLF
    /// A header line starts with whitespace (obs-fold, RFC 9112 §5.2).
    case obsoleteLineFolding
    /// A header name is empty, has forbidden bytes, or whitespace before the colon.
    case invalidHeaderName
    /// A header value has control bytes (bare CR, NUL, …).
    case invalidHeaderValue
    /// An HTTP/1.1 request has no `Host`, or a request has more than one.
    case invalidHost
    /// `Content-Length` is not a decimal number.
    case invalidContentLength
    /// Two `Content-Length` values differ.
    case conflictingContentLength
    /// Both `Content-Length` and `Transfer-Encoding` are present.
    case contentLengthWithTransferEncoding
    /// `Transfer-Encoding` in an HTTP/1.0 request, or `chunked` is not the final coding.
    case invalidTransferEncoding
    /// A transfer coding other than `chunked`.
    case unsupportedTransferEncoding
    /// A chunk-size line is malformed or too long.
    case invalidChunkSize
    /// A chunk's data is not followed by CRLF.
    case invalidChunkTerminator
    /// The request line and headers (or the trailers) exceed the limit.
    case headersTooLarge

    /// The status the server answers with.
    public var status: HTTPStatus {
        switch self {
        case .headersTooLarge: .requestHeaderFieldsTooLarge
        case .unsupportedTransferEncoding: .notImplemented
        default: .badRequest
        }
    }

    public var description: String {
        switch self {
        case .invalidRequestLine: "invalid request line"
        case .invalidMethod: "invalid method"
        case .invalidTarget: "invalid request target"
        case .invalidVersion: "unsupported HTTP version"
        case .bareLF: "line not terminated by CRLF"
        case .obsoleteLineFolding: "obsolete line folding"
        case .invalidHeaderName: "invalid header name"
        case .invalidHeaderValue: "invalid header value"
        case .invalidHost: "missing or repeated Host"
        case .invalidContentLength: "invalid Content-Length"
        case .conflictingContentLength: "conflicting Content-Length values"
        case .contentLengthWithTransferEncoding: "Content-Length with Transfer-Encoding"
        case .invalidTransferEncoding: "invalid Transfer-Encoding"
        case .unsupportedTransferEncoding: "unsupported transfer coding"
        case .invalidChunkSize: "invalid chunk size"
        case .invalidChunkTerminator: "chunk data not followed by CRLF"
        case .headersTooLarge: "request header fields too large"
        }
    }
}
