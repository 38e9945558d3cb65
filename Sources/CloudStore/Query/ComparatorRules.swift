/// Which comparators apply to which field types, and how a filter's value is brought to the
/// field's type.
extension Comparator {
    private static let equatable: Set<ScalarType> = [.string, .int64, .double, .timestamp, .reference]
    private static let ordered: Set<ScalarType> = [.string, .int64, .double, .timestamp]

    /// Whether the comparator can test a field of `type`.
    public func applies(to type: FieldType) -> Bool {
        switch self {
        case .equals, .notEquals, .in, .notIn:
            !type.isList && Self.equatable.contains(type.scalar)
        case .lessThan, .lessThanOrEquals, .greaterThan, .greaterThanOrEquals:
            !type.isList && Self.ordered.contains(type.scalar)
        case .near:
            type == .location
        case .beginsWith, .notBeginsWith:
            type == .string
        case .containsAllTokens, .containsAnyTokens:
            type.scalar == .string
        case .listContains, .notListContains, .listContainsAny, .notListContainsAny, .listContainsAll, .notListContainsAll:
            type.isList && Self.equatable.contains(type.scalar)
        case .listMemberBeginsWith, .notListMemberBeginsWith:
            type == .list(.string)
        }
    }

    /// Whether the comparator's value is a list of the field's element type.
    public var takesList: Bool {
        switch self {
        case .in, .notIn, .listContainsAny, .notListContainsAny, .listContainsAll, .notListContainsAll: true
        default: false
        }
    }
}

/// Brings filter values to the type of the field they are compared with.
enum FilterValueCoercion {
    /// `value` as a scalar of `target`, accepting the conversions clients rely on: integers for
    /// doubles and timestamps, a record name string for a reference, an exact double for an integer.
    static func scalar(_ value: FieldValue, to target: ScalarType, field: String) throws -> FieldValue {
        switch (target, value) {
        case (.string, .string), (.int64, .int64), (.double, .double), (.timestamp, .timestamp),
            (.reference, .reference), (.location, .location), (.bytes, .bytes):
            return value
        case (.double, .int64(let integer)), (.double, .timestamp(let integer)):
            return .double(Double(integer))
        case (.timestamp, .int64(let integer)):
            return .timestamp(integer)
        case (.int64, .timestamp(let integer)):
            return .int64(integer)
        case (.int64, .double(let double)) where double.rounded() == double && abs(double) < 9.2e18:
            return .int64(Int64(double))
        case (.timestamp, .double(let double)) where double.rounded() == double && abs(double) < 9.2e18:
            return .timestamp(Int64(double))
        case (.reference, .string(let name)):
            return .reference(Reference(recordName: name))
        default:
            throw CloudStoreError.badRequest("Field '\(field)' is \(target), but the filter gives a value of type \(value.type)")
        }
    }
}
