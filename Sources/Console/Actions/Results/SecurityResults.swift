import CloudKitWire
import CloudStore

/// A grant: what a role may do with a record type.
public struct GrantView: Sendable, Equatable {
    /// The role.
    public var role: String
    /// `CREATE`, `READ`, `WRITE`.
    public var permissions: [String]

    /// A grant of the store's.
    init(_ grant: Grant) {
        role = grant.role
        permissions = grant.permissions.map(\.rawValue)
    }

    /// The grant as JSON: `{role, permissions}`.
    var json: JSONValue { ["role": .string(role), "permissions": .array(permissions.map(JSONValue.string))] }

    /// A grant read back from its JSON.
    init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        role = try fields.string("role")
        permissions = try fields.strings("permissions")
    }
}

/// A record type's grants.
public struct RecordTypeGrantsView: ManagementResult, Equatable {
    /// The record type.
    public var name: String
    /// Its grants.
    public var grants: [GrantView]

    init(name: String, grants: [Grant]) {
        self.name = name
        self.grants = grants.map(GrantView.init)
    }

    public var json: JSONValue { ["name": .string(name), "grants": .array(grants.map(\.json))] }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        name = try fields.string("name")
        grants = try fields.array("grants", GrantView.init(json:))
    }
}

/// The security of an environment's public database: custom roles, each record type's
/// grants, and who holds which custom role.
public struct SecurityView: ManagementResult, Equatable {
    /// A user holding custom roles.
    public struct Holder: Sendable, Equatable {
        /// Their user record name.
        public var userRecordName: String
        /// Their sign-in name, when they still exist.
        public var name: String?
        /// The roles they hold, sorted.
        public var roles: [String]
    }

    /// The environment.
    public var environment: Environment
    /// Whether it can be changed here (development).
    public var editable: Bool
    /// The roles every schema has.
    public var systemRoles: [String]
    /// The custom roles.
    public var roles: [String]
    /// Each record type's grants.
    public var recordTypes: [RecordTypeGrantsView]
    /// Who holds custom roles.
    public var holders: [Holder]

    init(environment: Environment, schema: Schema, holders: [Holder]) {
        self.environment = environment
        editable = environment == .development
        systemRoles = [SystemRole.world, SystemRole.authenticated, SystemRole.creator]
        roles = schema.roles
        recordTypes = schema.recordTypes.map { RecordTypeGrantsView(name: $0.name, grants: $0.grants) }
        self.holders = holders
    }

    public var json: JSONValue {
        [
            "environment": .string(environment.rawValue), "editable": .bool(editable),
            "systemRoles": .array(systemRoles.map(JSONValue.string)),
            "roles": .array(roles.map(JSONValue.string)), "recordTypes": .array(recordTypes.map(\.json)),
            "holders": .array(
                holders.map { holder in
                    [
                        "userRecordName": .string(holder.userRecordName), "name": ManagementActions.optional(holder.name),
                        "roles": .array(holder.roles.map(JSONValue.string)),
                    ]
                }),
        ]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        environment = try fields.environment("environment")
        editable = try fields.bool("editable")
        systemRoles = try fields.strings("systemRoles")
        roles = try fields.strings("roles")
        recordTypes = try fields.array("recordTypes", RecordTypeGrantsView.init(json:))
        holders = try fields.array("holders") { value in
            let holder = try AnswerFields(value)
            return Holder(
                userRecordName: try holder.string("userRecordName"), name: try holder.optionalString("name"),
                roles: try holder.strings("roles"))
        }
    }
}

/// A custom role declared or deleted.
public struct RoleChangeView: ManagementResult, Equatable {
    /// The role.
    public var role: String
    /// Whether it was deleted (else created).
    public var deleted: Bool

    init(role: String, deleted: Bool) {
        self.role = role
        self.deleted = deleted
    }

    public var json: JSONValue { ["role": .string(role), deleted ? "deleted" : "created": true] }

    public init(json: JSONValue) throws {
        role = try AnswerFields(json).string("role")
        deleted = json["deleted"] == true
    }
}

/// The custom roles a user holds in an environment.
public struct UserRolesView: ManagementResult, Equatable {
    /// Their user record name.
    public var userRecordName: String
    /// Their sign-in name.
    public var name: String
    /// The roles, sorted.
    public var roles: [String]

    init(userRecordName: String, name: String, roles: [String]) {
        self.userRecordName = userRecordName
        self.name = name
        self.roles = roles
    }

    public var json: JSONValue {
        ["userRecordName": .string(userRecordName), "name": .string(name), "roles": .array(roles.map(JSONValue.string))]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        userRecordName = try fields.string("userRecordName")
        name = try fields.string("name")
        roles = try fields.strings("roles")
    }
}

/// The permission simulator's answer: whether it is allowed, the grant or rule that decides,
/// and every grant or rule weighed with what it gave the subject.
public struct AccessDecisionView: ManagementResult, Equatable {
    /// One grant or rule weighed.
    public struct Check: Equatable, Sendable {
        /// The grant or rule.
        public var rule: String
        /// Whether it gives the subject the permission.
        public var gives: Bool
        /// Why it does or does not.
        public var why: String
    }

    /// Whether the subject may.
    public var allowed: Bool
    /// The grant or rule that decides.
    public var rule: String
    /// The decision in a sentence.
    public var description: String
    /// Every grant or rule weighed, in the order the policy weighs them.
    public var checks: [Check]

    init(_ explanation: AccessExplanation) {
        allowed = explanation.decision.isAllowed
        rule = explanation.decision.rule
        description = explanation.decision.description
        checks = explanation.checks.map { Check(rule: $0.rule, gives: $0.gives, why: $0.why) }
    }

    public var json: JSONValue {
        [
            "allowed": .bool(allowed), "rule": .string(rule), "description": .string(description),
            "checks": .array(checks.map { ["rule": .string($0.rule), "gives": .bool($0.gives), "why": .string($0.why)] }),
        ]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        allowed = try fields.bool("allowed")
        rule = try fields.string("rule")
        description = try fields.string("description")
        checks = try (json["checks"]?.arrayValue ?? []).map { check in
            let fields = try AnswerFields(check)
            return Check(rule: try fields.string("rule"), gives: try fields.bool("gives"), why: try fields.string("why"))
        }
    }
}
