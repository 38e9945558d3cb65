/// A complete HTTP request as handlers see it: head, collected body and routing results.
public struct HTTPRequest: Sendable {
    /// The request method.
    public var method: HTTPMethod
    /// The request-target exactly as sent on the request line (path and query, still
    /// percent-encoded); use it to verify request signatures.
    public var target: String
    /// The path part of `target` as sent, still percent-encoded.
    public var rawPath: String
    /// The percent-decoded path, e.g. `/static/a b.css`.
    public var path: String
    /// The raw query string after `?` (without it), still percent-encoded; empty if none.
    public var query: String
    /// The HTTP version of the request line.
    public var version: HTTPVersion
    /// The header fields, with case-insensitive lookup.
    public var headers: HTTPHeaders
    /// The body, collected and de-chunked; empty if none.
    public var body: [UInt8]
    /// Values captured by `:name` and `*name` segments of the matched route.
    public var pathParameters: PathParameters
    /// The request id: the client's `X-Request-Id` when it is short and plain, else a fresh one.
    /// The same id is sent back in the response and written to the access log.
    public var requestID: String
    /// The peer address as `host:port`: the client itself, or a proxy in front of it. Rules per
    /// client count by ``client`` instead.
    public var remoteAddress: String
    /// Who the request comes from, decided once by the server (see ``TrustedProxies``).
    public var client: ClientAddress
    /// Values that middleware attaches for handlers further down the chain.
    public var attributes: RequestAttributes
    /// The address the server accepted the request on; `nil` for a request made in process.
    public var listenAddress: ListenAddress?

    /// Creates a request; the server builds these, tests and middleware may too.
    public init(
        method: HTTPMethod,
        target: String,
        version: HTTPVersion = .http1_1,
        headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [],
        pathParameters: PathParameters = PathParameters(),
        requestID: String = "",
        remoteAddress: String = "",
        client: ClientAddress? = nil
    ) {
        let split = HTTPRequest.splitTarget(target)
        self.init(
            method: method, target: target, rawPath: split.path, path: PercentDecoding.decode(split.path) ?? split.path,
            query: split.query, version: version, headers: headers, body: body, pathParameters: pathParameters,
            requestID: requestID, remoteAddress: remoteAddress, client: client ?? ClientAddress(peer: remoteAddress))
    }

    /// Creates a request from parts the server has already split and decoded.
    init(
        method: HTTPMethod, target: String, rawPath: String, path: String, query: String,
        version: HTTPVersion, headers: HTTPHeaders, body: [UInt8], pathParameters: PathParameters,
        requestID: String, remoteAddress: String, client: ClientAddress, listenAddress: ListenAddress? = nil
    ) {
        self.method = method
        self.target = target
        self.rawPath = rawPath
        self.path = path
        self.query = query
        self.version = version
        self.headers = headers
        self.body = body
        self.pathParameters = pathParameters
        self.requestID = requestID
        self.remoteAddress = remoteAddress
        self.client = client
        self.listenAddress = listenAddress
        self.attributes = RequestAttributes()
    }

    /// The body decoded as UTF-8 (invalid sequences replaced).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// Splits a request-target into its path and query (absolute-form targets lose their
    /// scheme and authority).
    static func splitTarget(_ target: String) -> (path: String, query: String) {
        // The common case, an origin-form target: split on the first "?" of its bytes.
        var target = target
        let split = target.withUTF8 { bytes -> (path: String, query: String)?? in
            guard bytes.first == UInt8(ascii: "/") else { return nil }
            guard let question = bytes.firstIndex(of: UInt8(ascii: "?")) else { return .some(nil) }
            return (
                String(decoding: UnsafeBufferPointer(rebasing: bytes[..<question]), as: UTF8.self),
                String(decoding: UnsafeBufferPointer(rebasing: bytes[(question + 1)...]), as: UTF8.self)
            )
        }
        switch split {
        case .some(.some(let parts)): return parts
        case .some(.none): return (target, "")
        case .none: break
        }
        var pathPart = Substring(target)
        if !pathPart.hasPrefix("/") {
            if let schemeEnd = pathPart.range(of: "://") {
                let afterScheme = pathPart[schemeEnd.upperBound...]
                if let slash = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" }) {
                    pathPart = afterScheme[slash...]
                } else {
                    pathPart = "/"
                }
                if pathPart.hasPrefix("?") { pathPart = "/" + pathPart }
            }
        }
        guard let question = pathPart.firstIndex(of: "?") else { return (String(pathPart), "") }
        return (String(pathPart[..<question]), String(pathPart[pathPart.index(after: question)...]))
    }
}
