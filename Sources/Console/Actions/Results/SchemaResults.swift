import CloudKitWire
import CloudStore

/// A record type: every field (system fields first) with its type and indexes, and its grants.
public struct RecordTypeView: ManagementResult, Equatable {
    /// A field.
    public struct Field: Sendable, Equatable {
        /// Its name.
        public var name: String
        /// Its type as CloudKit names it (`STRING`, `REFERENCE_LIST`…).
        public var type: String
        /// Whether it is a system field.
        public var system: Bool
        /// Its indexes (`QUERYABLE`, `SORTABLE`, `SEARCHABLE`), sorted.
        public var indexes: [String]
    }

    /// Its name.
    public var name: String
    /// System fields first, then user fields in schema order.
    public var fields: [Field]
    /// Its grants.
    public var grants: [GrantView]

    init(_ definition: RecordTypeDefinition) {
        name = definition.name
        fields = (SystemField.allCases.map { definition.field($0) } + definition.userFields).map { field in
            Field(name: field.name, type: field.type.wireName, system: field.isSystem, indexes: field.indexes.sorted().map(\.rawValue))
        }
        grants = definition.grants.map(GrantView.init)
    }

    public var json: JSONValue {
        let fields = fields.map { field -> JSONValue in
            [
                "name": .string(field.name), "type": .string(field.type), "system": .bool(field.system),
                "indexes": .array(field.indexes.map(JSONValue.string)),
            ]
        }
        return ["name": .string(name), "fields": .array(fields), "grants": .array(grants.map(\.json))]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        name = try fields.string("name")
        self.fields = try fields.array("fields") { value in
            let field = try AnswerFields(value)
            return Field(
                name: try field.string("name"), type: try field.string("type"), system: try field.bool("system"),
                indexes: try field.strings("indexes"))
        }
        grants = try fields.array("grants", GrantView.init(json:))
    }
}

/// An environment's schema: its roles and record types.
public struct EnvironmentSchemaView: ManagementResult, Equatable {
    /// The environment.
    public var environment: Environment
    /// Whether it can be changed here (development).
    public var editable: Bool
    /// The custom roles.
    public var roles: [String]
    /// The record types, in schema order.
    public var recordTypes: [RecordTypeView]

    init(_ schema: Schema, environment: Environment) {
        self.environment = environment
        editable = environment == .development
        roles = schema.roles
        recordTypes = schema.recordTypes.map(RecordTypeView.init)
    }

    public var json: JSONValue {
        [
            "environment": .string(environment.rawValue), "editable": .bool(editable), "roles": .array(roles.map(JSONValue.string)),
            "recordTypes": .array(recordTypes.map(\.json)),
        ]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        environment = try fields.environment("environment")
        editable = try fields.bool("editable")
        roles = try fields.strings("roles")
        recordTypes = try fields.array("recordTypes", RecordTypeView.init(json:))
    }
}

/// Schema text checked without changing anything.
public struct SchemaValidation: ManagementResult, Equatable {
    /// The record types it declares.
    public var recordTypes: Int64
    /// The roles it declares.
    public var roles: Int64

    init(_ schema: Schema) {
        recordTypes = Int64(schema.recordTypes.count)
        roles = Int64(schema.roles.count)
    }

    public var json: JSONValue { ["valid": true, "recordTypes": .integer(recordTypes), "roles": .integer(roles)] }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        recordTypes = try fields.int64("recordTypes")
        roles = try fields.int64("roles")
    }
}

/// What importing schema text into development would add, change and remove: the import's
/// dry run (`dryRun` in its JSON, always `true`), which changes nothing.
public struct SchemaImportPreviewView: ManagementResult, Equatable {
    /// The preview.
    public var preview: SchemaImportPreview

    init(_ preview: SchemaImportPreview) {
        self.preview = preview
    }

    public var json: JSONValue {
        func lines(_ lines: [String]) -> JSONValue { .array(lines.map(JSONValue.string)) }
        return ["dryRun": true, "added": lines(preview.added), "changed": lines(preview.changed), "removed": lines(preview.removed)]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        preview = SchemaImportPreview(
            added: try fields.strings("added"), changed: try fields.strings("changed"), removed: try fields.strings("removed"))
    }

    /// The preview as lines to print or show: each change after its sign (`+` added, `~`
    /// changed, `-` removed), or a sentence saying nothing would change.
    public var lines: [String] {
        guard !preview.isEmpty else { return ["Nothing would change: development's schema already matches."] }
        return preview.added.map { "+ " + $0 } + preview.changed.map { "~ " + $0 } + preview.removed.map { "- " + $0 }
    }
}

/// What deleting a field or a record type removes (counted before asking) or removed.
public struct SchemaDeletionView: ManagementResult, Equatable {
    /// The record type.
    public var recordType: String
    /// The field; `nil` when the whole type is meant.
    public var field: String?
    /// Records of the type, in every zone of every database.
    public var records: Int64
    /// Records holding a value in the field (0 for a whole type).
    public var values: Int64
    /// Whether the deletion was made, rather than counted.
    public var deleted: Bool

    init(_ impact: SchemaDeletionImpact, deleted: Bool) {
        recordType = impact.recordType
        field = impact.field
        records = impact.records
        values = impact.values
        self.deleted = deleted
    }

    public var json: JSONValue {
        var object: JSONObject = [
            "recordType": .string(recordType), "records": .integer(records), "values": .integer(values), "deleted": .bool(deleted),
        ]
        if let field { object["field"] = .string(field) }
        return .object(object)
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        recordType = try fields.string("recordType")
        field = try fields.optionalString("field")
        records = try fields.int64("records")
        values = try fields.int64("values")
        deleted = try fields.bool("deleted")
    }

    /// What was or would be removed, in words: "12 records of Note", "7 values of Note.title".
    public var summary: String {
        guard let field else { return "\(records) record\(records == 1 ? "" : "s") of \(recordType)" }
        return
            "\(values) value\(values == 1 ? "" : "s") of \(recordType).\(field), in \(records) record\(records == 1 ? "" : "s") of the type"
    }
}
