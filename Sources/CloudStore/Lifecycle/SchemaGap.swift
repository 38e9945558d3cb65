/// Something a production request needed that production's schema lacks: a record type, a
/// field, or an index on a field. When development's schema has it, deploying would have let the
/// request through: the schema guard (``CloudStore/productionSchemaGuard(_:since:)``) counts
/// production's refusals by gap, and names the deployment changes that fill each.
public struct SchemaGap: Hashable, Sendable, CustomStringConvertible {
    /// What is missing.
    public enum Kind: String, Hashable, Sendable {
        case recordType = "type"
        case field
        case index
    }

    /// What is missing.
    public var kind: Kind
    /// The record type missing, or whose field or index is.
    public var recordType: String
    /// The field missing, or whose index is.
    public var field: String?
    /// The index missing.
    public var index: IndexKind?

    /// A gap of `kind`.
    public init(_ kind: Kind, recordType: String, field: String? = nil, index: IndexKind? = nil) {
        self.kind = kind
        self.recordType = recordType
        self.field = field
        self.index = index
    }

    /// `record type Note`, `field title of type Note`, `QUERYABLE index on Note.title`.
    public var description: String {
        switch kind {
        case .recordType: "record type \(recordType)"
        case .field: "field \(field ?? "") of type \(recordType)"
        case .index: "\(index?.rawValue ?? "") index on \(recordType).\(field ?? "")"
        }
    }

    /// The gap as one word, as both backends keep it with the refused call and as the management
    /// API and the console name it: `type:Note`, `field:Note:title`, `index:Note:title:QUERYABLE`
    /// (names hold no colon).
    public var packed: String {
        ([kind.rawValue, recordType] + [field, index?.rawValue].compactMap { $0 }).joined(separator: ":")
    }

    /// A gap from its packed form; `nil` for anything else.
    public init?(packed: String?) {
        guard let parts = packed?.split(separator: ":", omittingEmptySubsequences: false).map(String.init), parts.count >= 2,
            let kind = Kind(rawValue: parts[0])
        else { return nil }
        switch (kind, parts.count) {
        case (.recordType, 2): self.init(.recordType, recordType: parts[1])
        case (.field, 3): self.init(.field, recordType: parts[1], field: parts[2])
        case (.index, 4):
            guard let index = IndexKind(rawValue: parts[3]) else { return nil }
            self.init(.index, recordType: parts[1], field: parts[2], index: index)
        default: return nil
        }
    }

    /// Whether `schema` fills the gap.
    public func isFilled(by schema: Schema) -> Bool {
        guard let type = schema.recordType(recordType) else { return false }
        switch kind {
        case .recordType: return true
        case .field: return type.field(field ?? "") != nil
        case .index: return index.map { type.field(field ?? "")?.indexes.contains($0) == true } ?? false
        }
    }

    /// The changes of a deployment that fill the gap: the type with its fields, the field with
    /// its indexes, or the index.
    public func changes(in difference: SchemaDifference) -> [SchemaDifference.Change] {
        difference.changes.filter { change in
            guard change.recordType == recordType else { return false }
            switch kind {
            case .recordType: return true
            case .field: return change.name == field && (change.kind == .addField || change.kind == .addIndex)
            case .index: return change.name == field && change.kind == .addIndex && change.detail == index?.rawValue
            }
        }
    }

    /// `production` with the gap filled from `development`: the whole record type (its fields,
    /// indexes and grants, and the roles those grant to), the field with its indexes, or the
    /// index; `nil` when development lacks it too, or has the field with another type.
    public func filling(_ production: Schema, from development: Schema) -> Schema? {
        guard let wanted = development.recordType(recordType) else { return nil }
        var filled = production
        guard let index = filled.recordTypes.firstIndex(where: { $0.name == recordType }) else {
            // The type itself is missing: it comes whole, as development has it.
            filled.recordTypes.append(wanted)
            let roles = wanted.grants.map(\.role).filter { !SystemRole.all.contains($0) && !filled.roles.contains($0) }
            filled.roles += Array(Set(roles)).sorted()
            return filled
        }
        guard kind != .recordType, let name = field, let developed = wanted.field(name) else { return kind == .recordType ? filled : nil }
        var type = filled.recordTypes[index]
        if let deployed = type.field(name) {
            guard deployed.type == developed.type else { return nil }
            var field = deployed
            if let index = self.index {
                guard developed.indexes.contains(index) else { return nil }
                field.indexes.insert(index)
            } else {
                field.indexes.formUnion(developed.indexes)
            }
            type.upsert(field)
        } else {
            type.upsert(developed)
        }
        filled.recordTypes[index] = type
        return filled
    }

    /// What a query of production lacks: its record type, a field it filters or sorts on, or the
    /// index a filter or sort needs (`missingIndex`, as the planner found it); `nil` when the
    /// query was refused for something else.
    static func of(_ query: Query, in schema: Schema, missingIndex: MissingIndex?) -> SchemaGap? {
        if let missingIndex {
            return SchemaGap(.index, recordType: missingIndex.recordType, field: missingIndex.field, index: missingIndex.index)
        }
        guard let type = schema.recordType(query.recordType) else { return SchemaGap(.recordType, recordType: query.recordType) }
        let fields = query.filters.map(\.field) + query.sorts.map(\.field)
        for case .field(let name) in fields where type.field(name) == nil {
            return SchemaGap(.field, recordType: type.name, field: name)
        }
        return nil
    }
}
