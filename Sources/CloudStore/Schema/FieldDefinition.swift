/// How a field declared as `NUMBER` in the schema language stores its values.
public enum NumberPreference: String, Hashable, Sendable {
    /// `NUMBER` with no preference: integers and doubles are both accepted.
    case unspecified
    /// `NUMBER PREFERRED AS INT64`.
    case int64 = "INT64"
    /// `NUMBER PREFERRED AS DOUBLE`.
    case double = "DOUBLE"
}

/// A field of a record type: its name, type and indexes.
public struct FieldDefinition: Hashable, Sendable {
    /// The field's name; system fields start with three underscores.
    public var name: String
    /// The field's type.
    public var type: FieldType
    /// Whether the field was declared `ENCRYPTED`.
    public var isEncrypted: Bool
    /// Set when the field was declared `NUMBER`; `type` is then INT64 or DOUBLE.
    public var numberPreference: NumberPreference?
    /// The indexes declared on the field.
    public var indexes: Set<IndexKind>

    /// Creates a field definition.
    public init(
        name: String, type: FieldType, indexes: Set<IndexKind> = [], isEncrypted: Bool = false,
        numberPreference: NumberPreference? = nil
    ) {
        self.name = name
        self.type = type
        self.indexes = indexes
        self.isEncrypted = isEncrypted
        self.numberPreference = numberPreference
    }

    /// Whether this is one of the implicit system fields.
    public var isSystem: Bool { name.utf8.starts(with: "___".utf8) && SystemField(rawValue: name) != nil }

    /// Whether the field carries `kind`.
    public func has(_ kind: IndexKind) -> Bool { indexes.contains(kind) }

    /// Whether a value of `valueType` may be stored in this field.
    public func accepts(_ valueType: FieldType) -> Bool {
        if valueType == type { return true }
        // A NUMBER field with no preference takes integers and doubles alike.
        if numberPreference == .unspecified, valueType.isList == type.isList,
            [.int64, .double].contains(valueType.scalar)
        {
            return true
        }
        return false
    }
}
