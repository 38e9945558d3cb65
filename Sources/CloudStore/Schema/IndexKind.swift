/// An index a field can carry. Queries need them: a filter needs QUERYABLE, a sort SORTABLE,
/// a token search SEARCHABLE.
public enum IndexKind: String, Hashable, Sendable, CaseIterable, Comparable, CustomStringConvertible {
    /// Equality and range filters.
    case queryable = "QUERYABLE"
    /// Full-text token search on strings.
    case searchable = "SEARCHABLE"
    /// Sorting.
    case sortable = "SORTABLE"

    public var description: String { rawValue }

    /// The order CloudKit's schema export lists indexes in.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

extension IndexKind {
    /// Whether a field of `type` can carry this index, as CloudKit allows: bytes, assets and
    /// lists of locations carry none; only strings and string lists are SEARCHABLE. Lists may be
    /// declared SORTABLE, as CloudKit's exports show, though a query cannot sort by a list.
    public func applies(to type: FieldType) -> Bool {
        if type.scalar == .asset || type.scalar == .bytes { return false }
        if type.isList && type.scalar == .location { return false }
        switch self {
        case .queryable, .sortable: return true
        case .searchable: return type.scalar == .string
        }
    }
}

extension IndexKind {
    /// The indexes a field of `type` can carry, in CloudKit's order: what a page offers and
    /// what a schema change accepts.
    public static func allowed(on type: FieldType) -> [IndexKind] {
        allCases.filter { $0.applies(to: type) }
    }
}
