extension SQLiteEnvironmentSession {
    /// ``EnvironmentWriter/insertAuditEntry(_:forgetBefore:)``: into the outbox, as the audit
    /// trail is in the catalog's file; the catalog forgets old entries as they arrive.
    func insertAuditEntry(_ entry: AuditEntry, forgetBefore: Int64) throws {
        try connection.statement(
            "INSERT INTO audit_outbox(key, time, actor, operator, container, environment, action, target, client) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
        ).execute([
            .text(SecureToken.hex(bytes: 16)), .integer(entry.time), .text(entry.actor), .text(entry.operatorName),
            entry.container.map(SQLiteValue.text) ?? .null, entry.environment.map(SQLiteValue.text) ?? .null, .text(entry.action),
            .text(entry.target), entry.clientAddress.map(SQLiteValue.text) ?? .null,
        ])
    }
}

extension SQLiteEnvironmentStore {
    /// ``EnvironmentStorage/auditOutbox()``.
    func auditOutbox() throws -> [AuditOutboxEntry] {
        try database.read { connection in
            try connection.statement(
                "SELECT \(CatalogRows.auditColumns), key FROM audit_outbox ORDER BY id"
            ).rows { row in AuditOutboxEntry(id: row.integer(7), key: row.text(9), entry: CatalogRows.auditEntry(from: row)) }
        }
    }

    /// ``EnvironmentStorage/removeFromAuditOutbox(_:)``.
    func removeFromAuditOutbox(_ ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        try database.write { connection in
            let delete = try connection.statement("DELETE FROM audit_outbox WHERE id = ?")
            for id in ids { try delete.execute([.integer(id)]) }
        }
    }
}
