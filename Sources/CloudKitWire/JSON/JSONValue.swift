/// A JSON value as CloudKit Web Services sends and receives it.
///
/// Numbers keep the distinction JSON text makes: `1` parses as ``integer(_:)`` and keeps every
/// digit of an `Int64`, while `1.0`, `1e3` and integers beyond the `Int64` range parse as
/// ``double(_:)``. Objects keep their keys in the order they were parsed or built.
///
/// ```swift
/// let request = try JSONValue.parse(Array(#"{"resultsLimit": 10}"#.utf8))
/// request["resultsLimit"]?.int64Value  // 10
/// let reply: JSONValue = ["records": [], "moreComing": false]
/// reply.serialized()                   // {"records":[],"moreComing":false}
/// ```
///
/// Equality is structural and order-sensitive for objects: two objects are equal when they
/// hold the same keys in the same order with equal values. `.integer(1)` and `.double(1)` are
/// different values. ``serialized(_:)`` text equals the value it holds.
public enum JSONValue: Hashable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without a fraction or exponent that fits in an `Int64`, kept exact.
    case integer(Int64)
    /// Any other number. The parser never produces NaN or an infinity.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, keys in order.
    case object(JSONObject)
    /// A value already written as JSON text (records on the hot paths), written out as it is.
    /// The parser never produces it; the accessors read through it.
    case serialized(JSONText)
}
