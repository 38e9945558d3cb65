extension PostgresCatalogStore: LifecycleStorage {
    /// Adds a deployment to production's history.
    func insertDeployment(_ deployment: SchemaDeployment) throws {
        try write { connection in
            try connection.execute(
                "INSERT INTO catalog.schema_deployments(container, deployed, deployed_by, changes, schema) VALUES ($1, $2, $3, $4, $5)",
                [
                    .text(deployment.container.rawValue), .integer(deployment.deployed), .text(deployment.deployedBy),
                    .text(deployment.changes.joined(separator: "\n")), .text(deployment.schema),
                ])
        }
    }

    /// A container's deployments, the latest first, at most `limit`.
    func deployments(in container: ContainerIdentifier, limit: Int) throws -> [SchemaDeployment] {
        try read { connection in
            try connection.execute(
                """
                SELECT deployed, deployed_by, changes, schema FROM catalog.schema_deployments
                WHERE container = $1 ORDER BY deployed DESC, id DESC LIMIT $2
                """,
                [.text(container.rawValue), .integer(limit)]
            ).map { row in
                SchemaDeployment(
                    container: container, deployed: row.integer(0), deployedBy: row.text(1),
                    changes: row.text(2).split(separator: "\n").map(String.init), schema: row.text(3))
            }
        }
    }

    /// Adds an operator action to the audit trail, and forgets entries from before `forgetBefore`.
    func insertAuditEntry(_ entry: AuditEntry, forgetBefore: Int64) throws {
        try write { connection in try Self.insertAuditEntry(entry, forgetBefore: forgetBefore, on: connection) }
    }

    /// The audit entries `filter` selects, newest first.
    func auditEntries(_ filter: AuditFilter) throws -> [AuditEntry] {
        var conditions: [String] = []
        var values: [PostgresValue] = []
        func parameter(_ value: PostgresValue) -> String {
            values.append(value)
            return "$\(values.count)"
        }
        if let name = filter.operatorName {
            // Without regard to ASCII case, as the operator's name is everywhere.
            conditions.append("lower(operator) = lower(\(parameter(.text(name)))::text COLLATE \"C\")")
        }
        if let container = filter.container { conditions.append("container = \(parameter(.text(container)))") }
        if let action = filter.action {
            // A prefix as a range of "C" (byte-ordered) texts, so the index on action serves it.
            conditions.append("action >= \(parameter(.text(action))) AND action < \(parameter(.text(action + "\u{10FFFF}")))")
        }
        if let before = filter.before { conditions.append("id < \(parameter(.integer(before)))") }
        let clause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let limit = parameter(.integer(max(1, min(filter.limit, 1000))))
        return try read { connection in
            try connection.execute(
                "SELECT \(CatalogRows.auditColumns) FROM catalog.audit_log\(clause) ORDER BY id DESC LIMIT \(limit)", values
            ).map(CatalogRows.auditEntry)
        }
    }
}
