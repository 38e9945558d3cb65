/// A comparator of a query filter, named as CloudKit names it on the wire.
public enum Comparator: String, Hashable, Sendable, CaseIterable {
    case equals = "EQUALS"
    case notEquals = "NOT_EQUALS"
    case lessThan = "LESS_THAN"
    case lessThanOrEquals = "LESS_THAN_OR_EQUALS"
    case greaterThan = "GREATER_THAN"
    case greaterThanOrEquals = "GREATER_THAN_OR_EQUALS"
    /// Within `distance` meters of a location.
    case near = "NEAR"
    /// The field's value is one of a list.
    case `in` = "IN"
    case notIn = "NOT_IN"
    /// A string field starts with the value.
    case beginsWith = "BEGINS_WITH"
    case notBeginsWith = "NOT_BEGINS_WITH"
    /// A searchable string holds every token of the value.
    case containsAllTokens = "CONTAINS_ALL_TOKENS"
    /// A searchable string holds at least one token of the value.
    case containsAnyTokens = "CONTAINS_ANY_TOKENS"
    /// A list field holds the value.
    case listContains = "LIST_CONTAINS"
    case notListContains = "NOT_LIST_CONTAINS"
    /// A list field holds at least one of the values.
    case listContainsAny = "LIST_CONTAINS_ANY"
    case notListContainsAny = "NOT_LIST_CONTAINS_ANY"
    /// A list field holds every one of the values.
    case listContainsAll = "LIST_CONTAINS_ALL"
    case notListContainsAll = "NOT_LIST_CONTAINS_ALL"
    /// A string list holds an element starting with the value.
    case listMemberBeginsWith = "LIST_MEMBER_BEGINS_WITH"
    case notListMemberBeginsWith = "NOT_LIST_MEMBER_BEGINS_WITH"

    /// Parses a wire name, also accepting the spellings some clients send (`CONTAINS_ANY`).
    public init?(wireName: String) {
        if let comparator = Comparator(rawValue: wireName) {
            self = comparator
        } else if wireName == "CONTAINS_ANY" {
            self = .containsAnyTokens
        } else if wireName == "CONTAINS_ALL" {
            self = .containsAllTokens
        } else {
            return nil
        }
    }

    /// Whether the comparator searches tokens and so needs a SEARCHABLE index rather than QUERYABLE.
    public var isTokenSearch: Bool { self == .containsAllTokens || self == .containsAnyTokens }
}
