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
    init(_ schema: EnvironmentSchemaView) {
        editable = schema.editable
        roles = schema.roles
        recordTypes = schema.recordTypes.map { type in
            RecordType(
                name: type.name,
                fields: type.fields.map { field in
                    Field(
                        name: field.name, type: FieldType(wireName: field.type) ?? .string, isSystem: field.system, indexes: field.indexes)
                },
                grants: type.grants.map { "\($0.role): " + $0.permissions.joined(separator: ", ") })
        }
    }

    /// The record type named `name`.
    func recordType(_ name: String) -> RecordType? { recordTypes.first { $0.name == name } }
}
