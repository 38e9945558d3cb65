extension PostgresCatalogStore {
    /// Adds an entry to the audit trail in the transaction of `connection` (a catalog write, or
    /// an environment's: both are in the one database), and forgets entries from before
    /// `forgetBefore`.
    static func insertAuditEntry(_ entry: AuditEntry, forgetBefore: Int64, on connection: PostgresConnection) throws {
        try connection.execute(
            """
            INSERT INTO catalog.audit_log(time, actor, operator, container, environment, action, target, client)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
            """,
            [
                .integer(entry.time), .text(entry.actor), .text(entry.operatorName), .text(entry.container), .text(entry.environment),
                .text(entry.action), .text(entry.target), .text(entry.clientAddress),
            ])
        try connection.execute("DELETE FROM catalog.audit_log WHERE time < $1", [.integer(forgetBefore)])
    }

    /// ``LifecycleStorage/insertAuditEntries(fromOutbox:forgetBefore:)``. Environments on
    /// PostgreSQL write the audit trail in the change's own transaction and keep no outbox, so
    /// nothing is moved here twice: the entries are added as they are.
    func insertAuditEntries(fromOutbox entries: [AuditOutboxEntry], forgetBefore: Int64) throws {
        try write { connection in
            for moved in entries { try Self.insertAuditEntry(moved.entry, forgetBefore: forgetBefore, on: connection) }
        }
    }
}

extension PostgresEnvironmentSession {
    /// ``EnvironmentWriter/insertAuditEntry(_:forgetBefore:)``: straight into the catalog's
    /// audit trail, which this transaction reaches.
    func insertAuditEntry(_ entry: AuditEntry, forgetBefore: Int64) throws {
        try PostgresCatalogStore.insertAuditEntry(entry, forgetBefore: forgetBefore, on: connection)
    }
}

extension PostgresEnvironmentStore {
    /// ``EnvironmentStorage/auditOutbox()``: none, as every entry reached the audit trail in
    /// its change's transaction.
    func auditOutbox() throws -> [AuditOutboxEntry] { [] }

    /// ``EnvironmentStorage/removeFromAuditOutbox(_:)``: there is nothing to remove.
    func removeFromAuditOutbox(_ ids: [Int64]) throws {}
}
