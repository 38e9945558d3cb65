/// An index a field can carry. Queries need them: a filter needs QUERYABLE, a sort SORTABLE,
/// a token search SEARCHABLE.
public enum IndexKind: String, Hashable, Sendable, CaseIterable, Comparable, CustomStringConvertible {
    /// Equality and range filters.
    case queryable = "QUERYABLE"
    /// Sorting and range filters.
    case sortable = "SORTABLE"
    /// Full-text token search on strings.
    case searchable = "SEARCHABLE"

    public var description: String { rawValue }

    /// The order CloudKit's schema export lists indexes in.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
