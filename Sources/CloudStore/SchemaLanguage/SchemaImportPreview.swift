/// What importing a schema into development would do, before it is done: what it adds (record
/// types, fields, indexes, roles), what it changes (grants) and what it removes (indexes, among
/// them those of the types and fields the text leaves out, which keep their records; and roles).
public struct SchemaImportPreview: Hashable, Sendable {
    /// What the import adds, one line each: `add field Note.title STRING`.
    public var added: [String]
    /// What it changes: `change the grants of Note to READ to _world`.
    public var changed: [String]
    /// What it removes: `remove index QUERYABLE from Note.title`, `remove role editor`.
    public var removed: [String]

    /// Whether the import would change nothing.
    public var isEmpty: Bool { added.isEmpty && changed.isEmpty && removed.isEmpty }

    /// A preview read from its parts.
    public init(added: [String], changed: [String], removed: [String]) {
        self.added = added
        self.changed = changed
        self.removed = removed
    }

    /// The difference from the schema development has (`current`) to the one it would have
    /// after the import (`imported`), which keeps every type and field `current` has. Listed as
    /// a deployment lists its changes, each with the same wording.
    init(current: Schema, imported: Schema) {
        let difference = SchemaDifference(production: current, development: imported)
        var added: [String] = []
        var changed: [String] = []
        var removed: [String] = []
        for change in difference.changes {
            switch change.kind {
            case .addRecordType, .addField, .addIndex, .addRole: added.append(change.description)
            case .changeGrants: changed.append(change.description)
            case .removeIndex: removed.append(change.description)
            }
        }
        // A deployment refuses to remove a role; an import removes it, from every user holding it.
        removed += current.roles.filter { !imported.roles.contains($0) }.map { "remove role \($0)" }
        self.init(added: added, changed: changed, removed: removed)
    }
}
