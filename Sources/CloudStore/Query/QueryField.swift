/// The field a filter or sort applies to: a user field by name, or a system field.
public enum QueryField: Hashable, Sendable, CustomStringConvertible {
    case field(String)
    case system(SystemField)

    /// Resolves a `fieldName` as clients send it: the `___` schema names of system fields
    /// (`___createTime`) name system fields; anything else names a user field.
    public init(fieldName: String) {
        if let system = SystemField(rawValue: fieldName) {
            self = .system(system)
        } else {
            self = .field(fieldName)
        }
    }

    /// Resolves a `systemFieldName` (`createdTimestamp`, `recordName`, or a `___` name).
    public init?(systemFieldName: String) {
        guard let system = SystemField(anyName: systemFieldName) else { return nil }
        self = .system(system)
    }

    /// The name the schema uses for the field (`title`, `___createTime`).
    public var schemaName: String {
        switch self {
        case .field(let name): name
        case .system(let system): system.rawValue
        }
    }

    public var description: String { schemaName }
}
