/// The HTTP version of a request line; only HTTP/1.0 and HTTP/1.1 are accepted.
public enum HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    /// HTTP/1.0: connections close after each response unless the client asks for keep-alive.
    case http1_0
    /// HTTP/1.1: connections persist unless either side sends `Connection: close`.
    case http1_1

    public var description: String {
        switch self {
        case .http1_0: "HTTP/1.0"
        case .http1_1: "HTTP/1.1"
        }
    }
}
