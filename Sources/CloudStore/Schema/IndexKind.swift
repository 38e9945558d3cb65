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

extension IndexKind {
    /// Whether a field of `type` can carry this index, as CloudKit allows:
    /// bytes and assets carry none; lists can be QUERYABLE (for the `LIST_*` comparators) but not
    /// SORTABLE, and lists of locations carry none; only strings are SEARCHABLE.
    public func applies(to type: FieldType) -> Bool {
        if type.scalar == .asset || type.scalar == .bytes { return false }
        if type.isList && type.scalar == .location { return false }
        switch self {
        case .queryable: return true
        case .sortable: return !type.isList
        case .searchable: return type == .string
        }
    }
}
