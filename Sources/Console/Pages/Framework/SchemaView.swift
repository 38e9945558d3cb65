import CloudKitWire
import CloudStore

/// An environment's schema as the schema action describes it, for pages to build pickers and
/// forms from: record types, and each one's fields with their types and indexes.
struct SchemaView {
    /// A field of a record type.
    struct Field {
        /// Its name (`title`, `___createTime`).
        var name: String
        /// Its type.
        var type: FieldType
        /// Whether it is a system field.
        var isSystem: Bool
        /// Its indexes: `QUERYABLE`, `SORTABLE`, `SEARCHABLE`.
        var indexes: [String]
    }

    /// A record type.
    struct RecordType {
        /// Its name.
        var name: String
        /// System fields first, then user fields in schema order.
        var fields: [Field]
        /// `role: PERMISSIONS` lines.
        var grants: [String]

        /// The fields apps set.
        var userFields: [Field] { fields.filter { !$0.isSystem } }
        /// The field named `name`.
        func field(_ name: String) -> Field? { fields.first { $0.name == name } }
    }

    /// The record types, in schema order.
    var recordTypes: [RecordType]
    /// Whether the schema can be changed here (development).
    var editable: Bool
    /// The custom roles.
    var roles: [String]

    /// Reads the schema action's answer.
    init(_ json: JSONValue) {
        editable = json["editable"] == .bool(true)
        roles = (json["roles"]?.arrayValue ?? []).compactMap(\.stringValue)
        recordTypes = (json["recordTypes"]?.arrayValue ?? []).map { type in
            RecordType(
                name: type["name"]?.stringValue ?? "",
                fields: (type["fields"]?.arrayValue ?? []).map { field in
                    Field(
                        name: field["name"]?.stringValue ?? "",
                        type: FieldType(wireName: field["type"]?.stringValue ?? "") ?? .string,
                        isSystem: field["system"] == .bool(true),
                        indexes: (field["indexes"]?.arrayValue ?? []).compactMap(\.stringValue))
                },
                grants: (type["grants"]?.arrayValue ?? []).map { grant in
                    "\(grant["role"]?.stringValue ?? ""): "
                        + (grant["permissions"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: ", ")
                })
        }
    }

    /// The record type named `name`.
    func recordType(_ name: String) -> RecordType? { recordTypes.first { $0.name == name } }
}
