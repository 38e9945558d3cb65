/// The implicit fields every record type has, by their schema names, and the names queries
/// use for them (`systemFieldName`).
public enum SystemField: String, Hashable, Sendable, CaseIterable {
    case createTime = "___createTime"
    case createdBy = "___createdBy"
    case etag = "___etag"
    case modTime = "___modTime"
    case modifiedBy = "___modifiedBy"
    case recordID = "___recordID"

    /// The field's type.
    public var type: FieldType {
        switch self {
        case .createTime, .modTime: .timestamp
        case .createdBy, .modifiedBy, .recordID: .reference
        case .etag: .string
        }
    }

    /// The name used for the field by `systemFieldName` in queries and sorts.
    public var queryName: String {
        switch self {
        case .createTime: "createdTimestamp"
        case .createdBy: "createdUserRecordName"
        case .etag: "recordChangeTag"
        case .modTime: "modifiedTimestamp"
        case .modifiedBy: "modifiedUserRecordName"
        case .recordID: "recordName"
        }
    }

    /// Finds a system field by its schema name (`___createTime`) or query name (`createdTimestamp`).
    public init?(anyName name: String) {
        if let field = SystemField(rawValue: name) {
            self = field
        } else if let field = SystemField.allCases.first(where: { $0.queryName == name }) {
            self = field
        } else {
            return nil
        }
    }

    /// The field's definition with no indexes.
    public var definition: FieldDefinition { FieldDefinition(name: rawValue, type: type) }
}
