/// The type of a single (non-list) field value, named as CloudKit names it on the wire.
public enum ScalarType: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case string = "STRING"
    case int64 = "INT64"
    case double = "DOUBLE"
    case timestamp = "TIMESTAMP"
    case bytes = "BYTES"
    case reference = "REFERENCE"
    case asset = "ASSETID"
    case location = "LOCATION"

    public var description: String { rawValue }
}

/// The type of a field: a scalar type, or a list of one scalar type.
public struct FieldType: Hashable, Sendable, CustomStringConvertible {
    /// The type of the value, or of each element of a list.
    public var scalar: ScalarType
    /// Whether the field holds a list.
    public var isList: Bool

    /// Creates a field type.
    public init(_ scalar: ScalarType, isList: Bool = false) {
        self.scalar = scalar
        self.isList = isList
    }

    /// A list of `scalar`.
    public static func list(_ scalar: ScalarType) -> FieldType { FieldType(scalar, isList: true) }

    public static let string = FieldType(.string)
    public static let int64 = FieldType(.int64)
    public static let double = FieldType(.double)
    public static let timestamp = FieldType(.timestamp)
    public static let bytes = FieldType(.bytes)
    public static let reference = FieldType(.reference)
    public static let asset = FieldType(.asset)
    public static let location = FieldType(.location)

    /// The wire name: `STRING`, `INT64_LIST`, …
    public var wireName: String { isList ? scalar.rawValue + "_LIST" : scalar.rawValue }

    /// Parses a wire name such as `STRING` or `REFERENCE_LIST`; `nil` for anything else.
    public init?(wireName: String) {
        if wireName.hasSuffix("_LIST") {
            guard let scalar = ScalarType(rawValue: String(wireName.dropLast(5))) else { return nil }
            self.init(scalar, isList: true)
        } else {
            guard let scalar = ScalarType(rawValue: wireName) else { return nil }
            self.init(scalar)
        }
    }

    public var description: String { wireName }
}
