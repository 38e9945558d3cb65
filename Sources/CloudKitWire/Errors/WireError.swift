/// A request body that cannot be read as CloudKit's wire format: a missing or mistyped key, an
/// unknown value. CloudKit: `BAD_REQUEST`, with the reason naming where in the body
/// (`operations[2].record.recordName is required`).
public struct WireError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, and where.
    public var reason: String

    /// Creates an error.
    public init(_ reason: String) { self.reason = reason }

    /// The reason.
    public var description: String { reason }
}
