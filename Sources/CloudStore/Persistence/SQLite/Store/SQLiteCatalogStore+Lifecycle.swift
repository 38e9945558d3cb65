extension SQLiteCatalogStore: LifecycleStorage {
    func insertDeployment(_ deployment: SchemaDeployment) throws {
        try write { connection in
            try connection.statement(
                "INSERT INTO schema_deployments(container, deployed, deployed_by, changes, schema) VALUES (?, ?, ?, ?, ?)"
            ).execute([
                .text(deployment.container.rawValue), .integer(deployment.deployed), .text(deployment.deployedBy),
                .text(deployment.changes.joined(separator: "\n")), .text(deployment.schema),
            ])
        }
    }

    func deployments(in container: ContainerIdentifier, limit: Int) throws -> [SchemaDeployment] {
        try read { connection in
            try connection.statement(
                "SELECT deployed, deployed_by, changes, schema FROM schema_deployments WHERE container = ? ORDER BY deployed DESC, id DESC LIMIT ?"
            ).rows([.text(container.rawValue), .integer(Int64(limit))]) { row in
                SchemaDeployment(
                    container: container, deployed: row.integer(0), deployedBy: row.text(1),
                    changes: row.text(2).split(separator: "\n").map(String.init), schema: row.text(3))
            }
        }
    }

    func insertAuditEntry(_ entry: AuditEntry, forgetBefore: Int64) throws {
        try write { connection in try Self.insertAuditEntry(entry, forgetBefore: forgetBefore, on: connection) }
    }

    func auditEntries(_ filter: AuditFilter) throws -> [AuditEntry] {
        var conditions: [String] = []
        var values: [SQLiteValue] = []
        if let name = filter.operatorName { conditions.append("operator = ?"); values.append(.text(name)) }
        if let container = filter.container { conditions.append("container = ?"); values.append(.text(container)) }
        if let action = filter.action {
            // A prefix as a range, so the index on action serves it.
            conditions.append("action >= ? AND action < ?")
            values += [.text(action), .text(action + "\u{10FFFF}")]
        }
        if let before = filter.before { conditions.append("id < ?"); values.append(.integer(before)) }
        let clause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        values.append(.integer(Int64(max(1, min(filter.limit, 1000)))))
        return try read { connection in
            try connection.statement(
                "SELECT \(CatalogRows.auditColumns) FROM audit_log\(clause) ORDER BY id DESC LIMIT ?"
            ).rows(values, CatalogRows.auditEntry)
        }
    }
}
