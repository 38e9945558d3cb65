import CloudKitWire
import CloudStore

extension ManagementActions {
    // MARK: - Deploying the schema

    /// What deploying development's schema to production would change, with the production
    /// records each change touches, and what it would refuse and why.
    public func schemaDifference(of container: String, as actor: OperatorIdentity) throws -> JSONValue {
        let difference = try store.schemaDifference(try existingContainer(container))
        return [
            "canDeploy": .bool(difference.canDeploy),
            "changes": .array(difference.changes.map { change in
                [
                    "kind": .string(change.kind.rawValue), "recordType": Self.optional(change.recordType), "name": Self.optional(change.name),
                    "detail": .string(change.detail), "productionRecords": .integer(change.productionRecords),
                    "description": .string(change.description),
                ]
            }),
            "refusals": .array(difference.refusals.map { refusal in
                ["recordType": Self.optional(refusal.recordType), "name": Self.optional(refusal.name), "reason": .string(refusal.reason)]
            }),
        ]
    }

    /// Deploys development's schema to production, additively, in one transaction.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` with every reason when it would remove or
    ///   change something production has, or when there is nothing to deploy.
    public func deploySchema(of container: String, as actor: OperatorIdentity) throws -> JSONValue {
        Self.deploymentJSON(try store.deploySchema(try existingContainer(container), deployedBy: actor.description))
    }

    /// Production's schema history, the latest deployment first.
    public func schemaDeployments(of container: String, as actor: OperatorIdentity) throws -> JSONValue {
        ["deployments": .array(try store.schemaDeployments(try existingContainer(container)).map(Self.deploymentJSON))]
    }

    private static func deploymentJSON(_ deployment: SchemaDeployment) -> JSONValue {
        [
            "deployed": time(deployment.deployed), "deployedBy": .string(deployment.deployedBy),
            "changes": .array(deployment.changes.map(JSONValue.string)), "schema": .string(deployment.schema),
        ]
    }

    // MARK: - Resetting development

    /// What resetting the container's development environment would delete.
    public func developmentContents(of container: String, as actor: OperatorIdentity) throws -> JSONValue {
        Self.contentsJSON(try store.developmentContents(try existingContainer(container)))
    }

    /// Resets the container's development environment: every record and zone deleted, the
    /// schema returned to production's. Production is untouched.
    /// - Parameter confirmation: the container identifier typed again, as a guard against
    ///   resetting the wrong container.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` when the confirmation is not the identifier.
    public func resetDevelopment(of container: String, confirmation: String, as actor: OperatorIdentity) throws -> JSONValue {
        let identifier = try existingContainer(container)
        guard confirmation.trimmingCharacters(in: .whitespaces) == identifier.rawValue else {
            throw CloudStoreError.badRequest("To reset development, type the container identifier \(identifier) exactly")
        }
        return ["reset": true, "deleted": Self.contentsJSON(try store.resetDevelopment(identifier))]
    }

    private static func contentsJSON(_ contents: DevelopmentContents) -> JSONValue {
        [
            "records": .integer(contents.records), "zones": .integer(Int64(contents.zones)),
            "recordTypes": .integer(Int64(contents.recordTypes)), "productionRecordTypes": .integer(Int64(contents.productionRecordTypes)),
        ]
    }
}
