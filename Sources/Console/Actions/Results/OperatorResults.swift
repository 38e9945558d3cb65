import CloudKitWire
import CloudStore

/// A console operator added.
public struct OperatorView: ManagementResult, Equatable {
    /// The name they sign in with.
    public var name: String
    /// When they were added, in milliseconds since 1970.
    public var created: Int64
    /// What they may do: `owner`, `developer` or `viewer`.
    public var role: String
    /// The containers they are limited to; empty for every container.
    public var containers: [String]

    init(_ account: OperatorAccount) {
        name = account.name
        created = account.created
        role = account.role.rawValue
        containers = account.containers.map(\.rawValue)
    }

    /// `viewer of iCloud.a, iCloud.b` or `owner of every container`.
    public var access: String { "\(role) of " + (containers.isEmpty ? "every container" : containers.joined(separator: ", ")) }

    public var json: JSONValue {
        [
            "name": .string(name), "created": .integer(created), "role": .string(role),
            "containers": .array(containers.map(JSONValue.string)),
        ]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        name = try fields.string("name")
        created = try fields.int64("created")
        role = try fields.string("role")
        containers = try fields.strings("containers")
    }
}

/// Every console operator, by name, with their role and containers.
public struct OperatorsView: ManagementResult, Equatable {
    /// The operators.
    public var operators: [OperatorView]

    init(_ operators: [OperatorView]) {
        self.operators = operators
    }

    public var json: JSONValue { ["operators": .array(operators.map(\.json))] }

    public init(json: JSONValue) throws {
        operators = try AnswerFields(json).array("operators") { try OperatorView(json: $0) }
    }
}

/// A change to an operator's account: removed, or given a new password.
public struct OperatorChangeView: ManagementResult, Equatable {
    /// What changed.
    public enum Change: String, Sendable, Equatable {
        /// The operator was removed.
        case removed
        /// The operator's password was set.
        case passwordSet
    }

    /// The operator.
    public var name: String
    /// What changed.
    public var change: Change

    init(name: String, change: Change) {
        self.name = name
        self.change = change
    }

    public var json: JSONValue { ["name": .string(name), change.rawValue: true] }

    public init(json: JSONValue) throws {
        name = try AnswerFields(json).string("name")
        change = json["removed"] == true ? .removed : .passwordSet
    }
}

/// The server secret replaced.
public struct SecretRotation: ManagementResult, Equatable {
    init() {}

    public var json: JSONValue { ["rotated": true] }

    public init(json: JSONValue) throws { _ = try AnswerFields(json).bool("rotated") }
}
