/// An HTTP request method such as `GET` or `POST`.
///
/// Methods are case-sensitive tokens (RFC 9110 §9.1); any valid token is accepted by the parser,
/// and the router answers methods it has no route for with 405.
public struct HTTPMethod: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The method token exactly as sent, e.g. `"GET"`.
    public let rawValue: String

    /// Creates a method from its token.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Creates a method from a string literal.
    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }

    /// `GET`
    public static let get = HTTPMethod("GET")
    /// `HEAD`
    public static let head = HTTPMethod("HEAD")
    /// `POST`
    public static let post = HTTPMethod("POST")
    /// `PUT`
    public static let put = HTTPMethod("PUT")
    /// `DELETE`
    public static let delete = HTTPMethod("DELETE")
    /// `PATCH`
    public static let patch = HTTPMethod("PATCH")
    /// `OPTIONS`
    public static let options = HTTPMethod("OPTIONS")
    /// `TRACE`
    public static let trace = HTTPMethod("TRACE")
    /// `CONNECT`
    public static let connect = HTTPMethod("CONNECT")
}
