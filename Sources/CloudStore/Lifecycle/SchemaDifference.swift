/// What deploying development's schema would change in production, and what it may not: a
/// deployment only adds (record types, fields, indexes, roles) and changes grants and indexes;
/// removing a record type, a field or a role production has, or changing a field's type, is
/// refused, because production's records depend on them.
public struct SchemaDifference: Hashable, Sendable {
    /// One change a deployment makes.
    public struct Change: Hashable, Sendable, CustomStringConvertible {
        /// What kind of change.
        public enum Kind: String, Hashable, Sendable {
            case addRecordType, addField, addIndex, removeIndex, addRole, changeGrants
        }

        /// What kind of change.
        public var kind: Kind
        /// The record type changed; `nil` for a role.
        public var recordType: String?
        /// The field changed, for fields and indexes; the role, for a role.
        public var name: String?
        /// The field's type, the index, or the grants after the change.
        public var detail: String
        /// Production records the change touches: those of the record type whose index is
        /// built or dropped or whose grants change; 0 for additions no record has yet.
        public var productionRecords: Int64

        /// `add field Note.title STRING`, `add index QUERYABLE on Note.title (1,204 records)`.
        public var description: String {
            let records = productionRecords > 0 ? " (\(productionRecords) production record\(productionRecords == 1 ? "" : "s"))" : ""
            switch kind {
            case .addRecordType: return "add record type \(recordType ?? "") \(detail)"
            case .addField: return "add field \(recordType ?? "").\(name ?? "") \(detail)"
            case .addIndex: return "add index \(detail) on \(recordType ?? "").\(name ?? "")\(records)"
            case .removeIndex: return "remove index \(detail) from \(recordType ?? "").\(name ?? "")\(records)"
            case .addRole: return "add role \(name ?? "")"
            case .changeGrants: return "change the grants of \(recordType ?? "") to \(detail)\(records)"
            }
        }
    }

    /// Something production has that development's schema would take away.
    public struct Refusal: Hashable, Sendable, CustomStringConvertible {
        /// The record type concerned; `nil` for a role.
        public var recordType: String?
        /// The field or role concerned.
        public var name: String?
        /// Why it is refused.
        public var reason: String

        /// The reason, as the deployment's refusal states it.
        public var description: String { reason }
    }

    /// The changes, record type by record type, then roles.
    public var changes: [Change]
    /// What development would remove or change in a way production cannot take.
    public var refusals: [Refusal]

    /// Whether there is nothing to deploy.
    public var isEmpty: Bool { changes.isEmpty && refusals.isEmpty }
    /// Whether the deployment may go ahead: something to change, and nothing refused.
    public var canDeploy: Bool { !changes.isEmpty && refusals.isEmpty }

    /// The difference from `production` to `development`.
    /// - Parameter productionRecords: production's records by record type, for the counts.
    public init(production: Schema, development: Schema, productionRecords: [String: Int64] = [:]) {
        var changes: [Change] = []
        var refusals: [Refusal] = []
        for type in development.recordTypes {
            let records = productionRecords[type.name] ?? 0
            guard let deployed = production.recordType(type.name) else {
                let fields = type.userFields.count
                changes.append(
                    Change(
                        kind: .addRecordType, recordType: type.name, name: nil,
                        detail: "(\(fields) field\(fields == 1 ? "" : "s"))", productionRecords: 0))
                for field in type.fields {
                    if !field.isSystem {
                        changes.append(
                            Change(
                                kind: .addField, recordType: type.name, name: field.name, detail: field.type.description,
                                productionRecords: 0))
                    }
                    for index in field.indexes.sorted() {
                        changes.append(
                            Change(kind: .addIndex, recordType: type.name, name: field.name, detail: index.rawValue, productionRecords: 0))
                    }
                }
                continue
            }
            for field in type.fields {
                guard let existing = deployed.field(field.name) else {
                    changes.append(
                        Change(
                            kind: .addField, recordType: type.name, name: field.name, detail: field.type.description, productionRecords: 0))
                    for index in field.indexes.sorted() {
                        changes.append(
                            Change(kind: .addIndex, recordType: type.name, name: field.name, detail: index.rawValue, productionRecords: 0))
                    }
                    continue
                }
                if existing.type != field.type {
                    refusals.append(
                        Refusal(
                            recordType: type.name, name: field.name,
                            reason:
                                "Field \(type.name).\(field.name) is \(existing.type) in production and \(field.type) in development: a field's type cannot change once deployed"
                        ))
                    continue
                }
                for index in field.indexes.subtracting(existing.indexes).sorted() {
                    changes.append(
                        Change(kind: .addIndex, recordType: type.name, name: field.name, detail: index.rawValue, productionRecords: records)
                    )
                }
                for index in existing.indexes.subtracting(field.indexes).sorted() {
                    changes.append(
                        Change(
                            kind: .removeIndex, recordType: type.name, name: field.name, detail: index.rawValue, productionRecords: records)
                    )
                }
            }
            for field in deployed.userFields where type.field(field.name) == nil {
                refusals.append(
                    Refusal(
                        recordType: type.name, name: field.name,
                        reason:
                            "Field \(type.name).\(field.name) is in production but not in development: deployed fields cannot be removed"))
            }
            if Set(type.grants) != Set(deployed.grants) {
                let grants = type.grants.map { "\($0.permissions.map(\.rawValue).joined(separator: ", ")) to \($0.role)" }.joined(
                    separator: "; ")
                changes.append(
                    Change(
                        kind: .changeGrants, recordType: type.name, name: nil, detail: grants.isEmpty ? "none" : grants,
                        productionRecords: records))
            }
        }
        for type in production.recordTypes where development.recordType(type.name) == nil {
            refusals.append(
                Refusal(
                    recordType: type.name, name: nil,
                    reason: "Record type \(type.name) is in production but not in development: deployed record types cannot be removed"))
        }
        for role in development.roles where !production.roles.contains(role) {
            changes.append(Change(kind: .addRole, recordType: nil, name: role, detail: "", productionRecords: 0))
        }
        for role in production.roles where !development.roles.contains(role) {
            refusals.append(
                Refusal(
                    recordType: nil, name: role,
                    reason: "Role \(role) is in production but not in development: deployed roles cannot be removed"))
        }
        self.changes = changes
        self.refusals = refusals
    }
}
