import CloudKitWire
import CloudStore

/// What deploying development's schema to production would change, and what it would refuse.
public struct SchemaDifferenceView: ManagementResult, Equatable {
    /// One change a deployment would make.
    public struct Change: Sendable, Equatable {
        /// What kind of change (`addRecordType`, `addField`, `addIndex`, …).
        public var kind: String
        /// The record type changed, when there is one.
        public var recordType: String?
        /// The field, index or role changed, when there is one.
        public var name: String?
        /// What exactly changes.
        public var detail: String
        /// The production records the change touches.
        public var productionRecords: Int64
        /// The change in a sentence.
        public var description: String
    }

    /// One change a deployment refuses.
    public struct Refusal: Sendable, Equatable {
        /// The record type concerned, when there is one.
        public var recordType: String?
        /// The field, index or role concerned, when there is one.
        public var name: String?
        /// Why it is refused.
        public var reason: String
    }

    /// Whether deploying would succeed.
    public var canDeploy: Bool
    /// The changes, in order.
    public var changes: [Change]
    /// The refusals.
    public var refusals: [Refusal]

    init(_ difference: SchemaDifference) {
        canDeploy = difference.canDeploy
        changes = difference.changes.map { change in
            Change(
                kind: change.kind.rawValue, recordType: change.recordType, name: change.name, detail: change.detail,
                productionRecords: change.productionRecords, description: change.description)
        }
        refusals = difference.refusals.map { Refusal(recordType: $0.recordType, name: $0.name, reason: $0.reason) }
    }

    public var json: JSONValue {
        [
            "canDeploy": .bool(canDeploy),
            "changes": .array(
                changes.map { change in
                    [
                        "kind": .string(change.kind), "recordType": ManagementActions.optional(change.recordType),
                        "name": ManagementActions.optional(change.name),
                        "detail": .string(change.detail), "productionRecords": .integer(change.productionRecords),
                        "description": .string(change.description),
                    ]
                }),
            "refusals": .array(
                refusals.map { refusal in
                    [
                        "recordType": ManagementActions.optional(refusal.recordType), "name": ManagementActions.optional(refusal.name),
                        "reason": .string(refusal.reason),
                    ]
                }),
        ]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        canDeploy = try fields.bool("canDeploy")
        changes = try fields.array("changes") { value in
            let change = try AnswerFields(value)
            return Change(
                kind: try change.string("kind"), recordType: try change.optionalString("recordType"),
                name: try change.optionalString("name"),
                detail: try change.string("detail"), productionRecords: try change.int64("productionRecords"),
                description: try change.string("description"))
        }
        refusals = try fields.array("refusals") { value in
            let refusal = try AnswerFields(value)
            return Refusal(
                recordType: try refusal.optionalString("recordType"), name: try refusal.optionalString("name"),
                reason: try refusal.string("reason"))
        }
    }
}

/// One deployment of the schema to production.
public struct SchemaDeploymentView: ManagementResult, Equatable {
    /// When, in milliseconds since 1970.
    public var deployed: Int64
    /// Who deployed it.
    public var deployedBy: String
    /// The changes it made, each in a sentence.
    public var changes: [String]
    /// Production's schema after it, as `.ckdb` text.
    public var schema: String

    init(_ deployment: SchemaDeployment) {
        deployed = deployment.deployed
        deployedBy = deployment.deployedBy
        changes = deployment.changes
        schema = deployment.schema
    }

    public var json: JSONValue {
        [
            "deployed": .integer(deployed), "deployedBy": .string(deployedBy), "changes": .array(changes.map(JSONValue.string)),
            "schema": .string(schema),
        ]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        deployed = try fields.int64("deployed")
        deployedBy = try fields.string("deployedBy")
        changes = try fields.strings("changes")
        schema = try fields.string("schema")
    }
}

/// Production's schema history, the latest deployment first.
public struct SchemaDeploymentsView: ManagementResult, Equatable {
    /// The deployments.
    public var deployments: [SchemaDeploymentView]

    public var json: JSONValue { ["deployments": .array(deployments.map(\.json))] }

    init(_ deployments: [SchemaDeploymentView]) { self.deployments = deployments }

    public init(json: JSONValue) throws {
        deployments = try AnswerFields(json).array("deployments", SchemaDeploymentView.init(json:))
    }
}

/// What development holds: what resetting it would delete, or did.
public struct DevelopmentContentsView: ManagementResult, Equatable {
    /// Its records.
    public var records: Int64
    /// Its zones.
    public var zones: Int64
    /// Its record types.
    public var recordTypes: Int64
    /// Production's record types, which development has after a reset.
    public var productionRecordTypes: Int64
    /// Its users' signed-in sessions.
    public var sessions: Int64

    init(_ contents: DevelopmentContents) {
        records = contents.records
        zones = Int64(contents.zones)
        recordTypes = Int64(contents.recordTypes)
        productionRecordTypes = Int64(contents.productionRecordTypes)
        sessions = Int64(contents.sessions)
    }

    public var json: JSONValue {
        [
            "records": .integer(records), "zones": .integer(zones), "recordTypes": .integer(recordTypes),
            "productionRecordTypes": .integer(productionRecordTypes), "sessions": .integer(sessions),
        ]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        records = try fields.int64("records")
        zones = try fields.int64("zones")
        recordTypes = try fields.int64("recordTypes")
        productionRecordTypes = try fields.int64("productionRecordTypes")
        sessions = try fields.int64("sessions")
    }
}

/// A reset of development: what it deleted.
public struct ResetOutcome: ManagementResult, Equatable {
    /// What was deleted.
    public var deleted: DevelopmentContentsView
    /// The seed restored; `nil` when development was left empty.
    public var seed: String?
    /// How many of the seed's records were written back.
    public var restored: Int64?

    init(deleted: DevelopmentContentsView, seed: String? = nil, restored: Int64? = nil) {
        self.deleted = deleted
        self.seed = seed
        self.restored = restored
    }

    public var json: JSONValue {
        var object: JSONObject = ["reset": true, "deleted": deleted.json]
        // Only a reset to a seed says which: a plain reset answers as it always has.
        if let seed { object["seed"] = .string(seed) }
        if let restored { object["restored"] = .integer(restored) }
        return .object(object)
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        deleted = try DevelopmentContentsView(json: try fields.value("deleted"))
        seed = try fields.optionalString("seed")
        restored = try fields.optionalInt64("restored")
    }
}
