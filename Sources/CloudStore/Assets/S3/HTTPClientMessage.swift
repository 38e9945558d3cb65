/// A request the asset store's HTTP client sends: the method, the target as it goes on the
/// request line (already percent-encoded), headers, and a body.
struct HTTPClientRequest: Sendable {
    var method: String
    var target: String
    /// Sent in order, after `Host`; `Content-Length` is added for a body or a method that may
    /// carry one.
    var headers: [(name: String, value: String)]
    var body: [UInt8] = []

    /// Whether the response to this request has no body, whatever its headers say.
    var expectsNoBody: Bool { method == "HEAD" }
}

/// A response the asset store's HTTP client received.
struct HTTPClientResponse: Sendable {
    var status: Int
    /// Every header line, in the order received.
    var headers: [(name: String, value: String)]
    /// The body, de-chunked.
    var body: [UInt8]

    /// The first value of a header, whatever its case.
    func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}
