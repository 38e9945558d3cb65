import CloudKitWire
import CloudStore

extension ManagementActions {
    // MARK: - Deploying the schema

    /// What deploying development's schema to production would change, with the production
    /// records each change touches, and what it would refuse and why.
    /// - Parameter filling: gaps of production's schema (``SchemaGap/packed``): only what fills
    ///   them, as the schema guard's pre-filled deployment.
    public func schemaDifference(of container: ContainerIdentifier, filling: [String]? = nil, as actor: OperatorIdentity) throws
        -> SchemaDifferenceView
    {
        SchemaDifferenceView(try store.schemaDifference(try existingContainer(container), filling: try Self.gaps(filling)))
    }

    /// Deploys development's schema to production, additively, in one transaction; with
    /// `filling`, only what fills those gaps of production's schema.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` with every reason when it would remove or
    ///   change something production has, or when there is nothing to deploy.
    public func deploySchema(of container: ContainerIdentifier, filling: [String]? = nil, as actor: OperatorIdentity) throws
        -> SchemaDeploymentView
    {
        let deployment = try store.deploySchema(
            try existingContainer(container), filling: try Self.gaps(filling), deployedBy: actor.description, by: actor)
        return SchemaDeploymentView(deployment)
    }

    /// What production refused in the last day for want of a record type, field or index that
    /// development has, gap by gap, with the latest request ids and the changes that fill each.
    public func schemaGuard(of container: ContainerIdentifier, as actor: OperatorIdentity) throws -> SchemaGuardView {
        SchemaGuardView(try store.productionSchemaGuard(try existingContainer(container)))
    }

    /// Gaps from their packed forms; `nil` for none given.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` naming one that is not a gap.
    static func gaps(_ packed: [String]?) throws -> [SchemaGap]? {
        guard let packed, !packed.isEmpty else { return nil }
        return try packed.map { text in
            guard let gap = SchemaGap(packed: text) else {
                throw CloudStoreError.badRequest(
                    "'\(text)' names no gap of the schema: use type:T, field:T:F or index:T:F:QUERYABLE|SORTABLE|SEARCHABLE")
            }
            return gap
        }
    }

    /// Production's schema history, the latest deployment first.
    public func schemaDeployments(of container: ContainerIdentifier, as actor: OperatorIdentity) throws -> SchemaDeploymentsView {
        SchemaDeploymentsView(try store.schemaDeployments(try existingContainer(container)).map(SchemaDeploymentView.init))
    }

    // MARK: - Resetting development

    /// What resetting the container's development environment would delete.
    public func developmentContents(of container: ContainerIdentifier, as actor: OperatorIdentity) throws -> DevelopmentContentsView {
        DevelopmentContentsView(try store.developmentContents(try existingContainer(container)))
    }

    /// Resets the container's development environment: every record and zone deleted, the
    /// schema returned to production's. Production is untouched.
    /// - Parameters:
    ///   - confirmation: the container identifier typed again, as a guard against resetting
    ///     the wrong container.
    ///   - seed: a seed to restore in the same transaction; `nil` leaves development empty.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` when the confirmation is not the identifier;
    ///   ``CloudStoreError/notFound(_:)`` when there is no such seed.
    public func resetDevelopment(
        of container: ContainerIdentifier, confirmation: String, seed: String? = nil, as actor: OperatorIdentity
    ) throws -> ResetOutcome {
        let identifier = try existingContainer(container)
        guard confirmation.trimmingCharacters(in: .whitespaces) == identifier.rawValue else {
            throw CloudStoreError.badRequest("To reset development, type the container identifier \(identifier) exactly")
        }
        let seed = seed.map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        let reset = try store.resetDevelopment(identifier, toSeed: seed, by: actor)
        return ResetOutcome(
            deleted: DevelopmentContentsView(reset.deleted), seed: reset.seed?.name, restored: seed == nil ? nil : Int64(reset.restored))
    }
}

extension ManagementActions {
    // MARK: - The audit trail

    /// Operator actions, newest first: who (an operator, a management token or the local command
    /// line) did what to which thing, when. `next` continues the list when there is more.
    /// - Parameters:
    ///   - operatorName: only this operator's actions.
    ///   - container: only actions on this container.
    ///   - action: only actions beginning with this (`record.` for every record action).
    ///   - before: the `next` of the page before.
    public func auditTrail(
        operatorName: String?, container: String?, action: String?, before: String?, limit: Int = 50, as actor: OperatorIdentity
    ) throws -> AuditTrailView {
        var beforeID: Int64?
        if let before, !before.isEmpty {
            guard let id = Int64(before), id > 0 else { throw CloudStoreError.badRequest("'before' is the 'next' of an earlier page") }
            beforeID = id
        }
        let size = max(1, min(limit, 500))
        let entries = try store.auditEntries(
            AuditFilter(
                operatorName: Self.nonBlank(operatorName), container: Self.nonBlank(container), action: Self.nonBlank(action),
                before: beforeID,
                limit: size))
        let next = entries.count == size ? entries.last.map { String($0.id) } : nil
        return AuditTrailView(entries: entries, next: next)
    }

    /// The most entries one export of the audit trail holds.
    public static let maximumAuditExport = 100_000

    /// The audit trail as JSON lines, newest first, filtered as ``auditTrail(operatorName:container:action:before:limit:as:)``
    /// filters it (`record.read` for the operators' reads of users' records), up to ``maximumAuditExport`` entries.
    public func exportAuditTrail(operatorName: String?, container: String?, action: String?, as actor: OperatorIdentity) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var before: String?
        var exported = 0
        repeat {
            let page = try auditTrail(
                operatorName: operatorName, container: container, action: action, before: before, limit: 500, as: actor)
            for entry in page.entries.prefix(Self.maximumAuditExport - exported) {
                bytes += AuditTrailView.json(entry).serialized()
                bytes.append(UInt8(ascii: "\n"))
            }
            exported += page.entries.count
            before = page.next
        } while before != nil && exported < Self.maximumAuditExport
        return bytes
    }

    private static func nonBlank(_ text: String?) -> String? {
        guard let trimmed = text?.trimmingCharacters(in: .whitespaces), !trimmed.isEmpty else { return nil }
        return trimmed
    }
}
