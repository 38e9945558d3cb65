/// What a route does, as metrics name it: the interface it belongs to (`cloudkit`, `management`,
/// `server`) and the operation (`records/query`). Requests of routes without one are counted
/// together as ``other``.
public struct RouteOperation: Hashable, Sendable, Comparable {
    /// The interface the route belongs to.
    public var api: String
    /// The operation's name within it.
    public var name: String

    /// Names an operation of `api`.
    public init(api: String, name: String) {
        self.api = api
        self.name = name
    }

    /// Where requests of unnamed routes, unmatched paths and requests refused before routing are counted.
    public static let other = RouteOperation(api: "other", name: "other")

    public static func < (lhs: RouteOperation, rhs: RouteOperation) -> Bool {
        (lhs.api, lhs.name) < (rhs.api, rhs.name)
    }
}
