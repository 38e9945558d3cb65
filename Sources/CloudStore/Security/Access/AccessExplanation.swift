/// Why a caller may or may not do something, as the code that enforces it decides: who asked,
/// the permission, where and on what, every grant or rule evaluated with its result, and the
/// decision with the rule that decided. The permission simulator answers one; for the same
/// inputs, enforcement decides the same (``AccessPolicy/explain(_:on:creator:roles:)`` runs
/// ``AccessPolicy/decide(_:on:creator:roles:)`` for its decision).
public struct AccessExplanation: Hashable, Sendable {
    /// Who asked: `world`, `user(_…)`, `server(_…)`, `operator(_…)`.
    public var caller: String
    /// What was asked; `nil` for reaching the database at all.
    public var permission: Permission?
    /// The database: `public`, `private(_…)`, `shared(_…)`.
    public var database: String
    /// The record type; `nil` for a decision about the database or a share, not a type's grants.
    public var recordType: String?
    /// The record, when one is named (READ and WRITE, and a new record's name in a request).
    public var recordName: String?
    /// The zone of the record, when known.
    public var zone: String?
    /// Every grant or rule evaluated, in the order the policy weighs them.
    public var checks: [Check]
    /// The decision, and the grant or rule that decided.
    public var decision: AccessDecision

    /// An explanation of `decision`, as recorded or answered.
    public init(
        caller: String, permission: Permission?, database: String, recordType: String?, recordName: String?, zone: String?,
        checks: [Check], decision: AccessDecision
    ) {
        self.caller = caller
        self.permission = permission
        self.database = database
        self.recordType = recordType
        self.recordName = recordName
        self.zone = zone
        self.checks = checks
        self.decision = decision
    }

    /// One grant or rule, and what it gave this caller.
    public struct Check: Hashable, Sendable {
        /// The grant or rule: `GRANT READ TO "_world"`, `the caller is the operator`.
        public var rule: String
        /// Whether it gives the caller the permission.
        public var gives: Bool
        /// Why it does or does not: `the caller is not signed in`, `it gives WRITE, not READ`.
        public var why: String

        /// A check of a rule.
        public init(rule: String, gives: Bool, why: String) {
            self.rule = rule
            self.gives = gives
            self.why = why
        }
    }

    /// Whether `other` explains the same decision on the same things, whatever record it names:
    /// one of them says why for both.
    func isAlike(_ other: AccessExplanation) -> Bool {
        caller == other.caller && permission == other.permission && database == other.database && recordType == other.recordType
            && zone == other.zone && checks == other.checks && decision == other.decision
    }

    /// A refusal by a rule about the caller alone, before any grant is weighed: credentials
    /// missing or rejected (an unknown API token, an expired session, a bad signature), or an
    /// operation only a signed-in user may ask for.
    /// - Parameters:
    ///   - caller: who the request was from, as far as known (`world` before any credential).
    ///   - rule: the rule that refused, such as `a request carries a known API token`.
    ///   - why: what the request carried instead.
    public static func refusal(caller: String, database: String, rule: String, why: String) -> AccessExplanation {
        AccessExplanation(
            caller: caller, permission: nil, database: database, recordType: nil, recordName: nil, zone: nil,
            checks: [Check(rule: rule, gives: false, why: why)], decision: .denied(.callerRule(rule)))
    }
}

extension AccessPolicy {
    /// Explains `permission` on a record of `type` for this caller: each rule the policy weighs,
    /// with whether it gives the permission and why, and the decision ``decide(_:on:creator:roles:)``
    /// takes. The caller's custom roles are read whenever the type grants to one, to say
    /// whether the caller holds it.
    func explain(
        _ permission: Permission, on type: RecordTypeDefinition, creator: String?, recordName: String?, zone: String?,
        roles: () throws -> Set<String>
    ) rethrows -> AccessExplanation {
        var held: Set<String>?
        let decision = try decide(permission, on: type, creator: creator) {
            let read = try roles()
            held = read
            return read
        }
        var checks: [AccessExplanation.Check] = []
        func check(_ rule: String, _ gives: Bool, _ why: String) { checks.append(.init(rule: rule, gives: gives, why: why)) }
        switch caller {
        case .operator:
            check("the operator may do anything", true, "the caller is the operator")
        case .server:
            check(
                "server-to-server keys administer the public database", database.scope == .public,
                database.scope == .public ? "the key uses the public database" : "the key may use only the public database")
        case .world where permission != .read:
            check("the world only reads", false, "\(permission) needs a signed-in user")
        case .world, .user:
            break
        }
        if database.scope != .public, case .user(let user, _) = caller {
            check(
                "a private database belongs to its user", !viaShare,
                viaShare ? "the database is \(database.owner)'s, reached through shares" : "the database is \(user)'s own")
        }
        if database.scope == .public, caller.signedInUser != nil || caller.isWorld {
            let user = caller.signedInUser
            let isCreator = user != nil && (creator == nil || creator == user)
            if held == nil, user != nil, type.grants.contains(where: { !SystemRole.all.contains($0.role) }) {
                held = try roles()
            }
            // Weighed as the policy weighs them: grants to the system roles, then to custom roles.
            let ordered = type.grants.filter { SystemRole.all.contains($0.role) } + type.grants.filter { !SystemRole.all.contains($0.role) }
            let worldWrites = caller.isWorld && permission != .read
            for grant in ordered {
                let rule = #"GRANT \#(grant.permissions.map(\.rawValue).joined(separator: ", ")) TO "\#(grant.role)""#
                let holdsRole: Bool
                let role: String
                switch grant.role {
                case SystemRole.world: (holdsRole, role) = (true, "everyone holds _world")
                case SystemRole.authenticated:
                    (holdsRole, role) = (user != nil, user != nil ? "the caller is signed in" : "the caller is not signed in")
                case SystemRole.creator:
                    holdsRole = isCreator
                    role =
                        user == nil
                        ? "the caller is not signed in"
                        : creator == nil
                            ? "the caller creates the record"
                            : isCreator ? "the caller created the record" : "\(creator ?? "") created the record"
                default:
                    holdsRole = held?.contains(grant.role) == true
                    role = holdsRole ? "the caller holds the role \(grant.role)" : "the caller does not hold the role \(grant.role)"
                }
                guard grant.permissions.contains(permission) else {
                    check(rule, false, "it gives \(grant.permissions.map(\.rawValue).joined(separator: ", ")), not \(permission)")
                    continue
                }
                guard !worldWrites else {
                    check(rule, false, "the world only reads")
                    continue
                }
                check(rule, holdsRole, role)
            }
            if !type.grants.contains(where: { $0.permissions.contains(permission) }) {
                check("no grant of \(type.name) gives \(permission)", false, "nobody may \(permission) its records but administrators")
            }
        }
        return AccessExplanation(
            caller: caller.description, permission: permission, database: database.description, recordType: type.name,
            recordName: recordName, zone: zone, checks: checks, decision: decision)
    }

    /// Explains a refusal to reach the database at all, or to change anything in it: the rule
    /// that refused and why it applies to this caller.
    func explainDatabase(_ decision: AccessDecision, permission: Permission? = nil) -> AccessExplanation {
        let check: AccessExplanation.Check
        switch (caller, decision.reason) {
        case (.world, .worldOnlyReads):
            check = .init(rule: "the world only reads", gives: false, why: "changing anything needs a signed-in user")
        case (.world, _):
            check = .init(rule: "the \(database.scope) database needs a signed-in user", gives: false, why: "the caller is not signed in")
        case (.server, _):
            check = .init(
                rule: "server-to-server keys administer the public database", gives: false,
                why: "the key may use only the public database")
        case (.operator, _):
            check = .init(
                rule: "operators act as users in development only", gives: false,
                why: "in production a user's \(database.scope) database is theirs alone")
        case (.user(let user, _), _):
            check = .init(
                rule: "a \(database.scope) database belongs to its user", gives: false,
                why: "the database is \(database.owner)'s, not \(user)'s")
        }
        return AccessExplanation(
            caller: caller.description, permission: permission, database: database.description, recordType: nil, recordName: nil,
            zone: nil, checks: [check], decision: decision)
    }

    /// Explains a refusal the caller's shares decide: what they give on the record, and the
    /// rule that refused.
    func explainShared(
        _ permission: Permission, _ reason: AccessDecision.Reason, recordName: String, recordType: String?, zone: String, given: String
    ) -> AccessExplanation {
        AccessExplanation(
            caller: caller.description, permission: permission, database: database.description, recordType: recordType,
            recordName: recordName, zone: zone,
            checks: [.init(rule: "the shares of zone \(zone) with the caller", gives: false, why: "they give \(given) on the record")],
            decision: .denied(reason))
    }
}
