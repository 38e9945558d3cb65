/// The value of one record field.
///
/// Lists hold values of a single scalar type; ``FieldValue/list(_:_:)`` names that type so that an
/// empty list still has one.
///
/// Only the large values are boxed: a string, a number or a list is held in place, so that a
/// record's usual fields cost no allocation each.
public enum FieldValue: Hashable, Sendable {
    case string(String)
    case int64(Int64)
    case double(Double)
    /// Milliseconds since 1970-01-01 UTC.
    case timestamp(Int64)
    case bytes([UInt8])
    indirect case reference(Reference)
    indirect case asset(Asset)
    indirect case location(Location)
    /// A list of values whose type is the given scalar type; elements are never lists.
    case list(ScalarType, [FieldValue])

    /// The field type this value has.
    public var type: FieldType {
        switch self {
        case .string: .string
        case .int64: .int64
        case .double: .double
        case .timestamp: .timestamp
        case .bytes: .bytes
        case .reference: .reference
        case .asset: .asset
        case .location: .location
        case .list(let scalar, _): .list(scalar)
        }
    }

    /// The elements of a list, or the value itself as a one-element array.
    public var elements: [FieldValue] {
        if case .list(_, let values) = self { return values }
        return [self]
    }

    /// Whether a list's elements all have its declared scalar type and none is itself a list.
    public var isWellFormed: Bool {
        guard case .list(let scalar, let values) = self else {
            if case .location(let location) = self { return location.isValid }
            if case .double(let value) = self { return !value.isNaN }
            return true
        }
        return values.allSatisfy { element in
            if case .list = element { return false }
            return element.type.scalar == scalar && element.isWellFormed
        }
    }

    /// The references this value holds (itself, or the elements of a reference list).
    public var references: [Reference] {
        switch self {
        case .reference(let reference):
            return [reference]
        case .list(.reference, let elements):
            return elements.compactMap { if case .reference(let reference) = $0 { reference } else { nil } }
        default:
            // Most values hold none; answering without building `elements` saves an allocation per field.
            return []
        }
    }
}
