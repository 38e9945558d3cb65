import CloudKitWire
import CloudStore

/// A page of the audit trail, newest first (the entries without their ids, which only `next` needs).
public struct AuditTrailView: ManagementResult, Equatable {
    /// The entries.
    public var entries: [AuditEntry]
    /// Where the next page starts, when there is more.
    public var next: String?

    init(entries: [AuditEntry], next: String?) {
        self.entries = entries
        self.next = next
    }

    public var json: JSONValue {
        var object: JSONObject = [
            "entries": .array(entries.map(Self.json))
        ]
        if let next { object["next"] = .string(next) }
        return .object(object)
    }

    /// One entry as the trail's answer and its export give it.
    static func json(_ entry: AuditEntry) -> JSONValue {
        [
            "time": .integer(entry.time), "actor": .string(entry.actor), "operator": .string(entry.operatorName),
            "container": ManagementActions.optional(entry.container), "environment": ManagementActions.optional(entry.environment),
            "action": .string(entry.action), "target": .string(entry.target), "client": ManagementActions.optional(entry.clientAddress),
        ]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        entries = try fields.array("entries") { value in
            let entry = try AnswerFields(value)
            return AuditEntry(
                time: try entry.int64("time"), actor: try entry.string("actor"), operatorName: try entry.string("operator"),
                container: try entry.optionalString("container"), environment: try entry.optionalString("environment"),
                action: try entry.string("action"), target: try entry.string("target"),
                clientAddress: try entry.optionalString("client"))
        }
        next = try fields.optionalString("next")
    }
}

/// The accounts being guessed at: many failed sign-ins in the last quarter of an hour.
public struct SignInAttacksView: ManagementResult, Equatable {
    /// One account.
    public struct Account: Sendable, Equatable {
        /// The operator's or user's name.
        public var name: String
        /// The failed sign-ins.
        public var failures: Int64
        /// The last of them, in milliseconds since 1970.
        public var lastFailure: Int64
        /// The addresses they came from.
        public var addresses: Int64
        /// The container of an app user; `nil` for an operator.
        public var container: String?

        /// Whether the account is an operator's.
        public var isOperator: Bool { container == nil }
    }

    /// The accounts.
    public var accounts: [Account]

    init(_ accounts: [Account]) { self.accounts = accounts }

    public var json: JSONValue {
        [
            "accounts": .array(
                accounts.map { account in
                    var object: JSONObject = [
                        "name": .string(account.name), "failures": .integer(account.failures), "lastFailure": .integer(account.lastFailure),
                        "addresses": .integer(account.addresses),
                    ]
                    if let container = account.container {
                        object["kind"] = "user"
                        object["container"] = .string(container)
                    } else {
                        object["kind"] = "operator"
                    }
                    return .object(object)
                })
        ]
    }

    public init(json: JSONValue) throws {
        accounts = try AnswerFields(json).array("accounts") { value in
            let account = try AnswerFields(value)
            let isOperator = try account.string("kind") == "operator"
            return Account(
                name: try account.string("name"), failures: try account.int64("failures"), lastFailure: try account.int64("lastFailure"),
                addresses: try account.int64("addresses"), container: isOperator ? nil : try account.string("container"))
        }
    }
}
