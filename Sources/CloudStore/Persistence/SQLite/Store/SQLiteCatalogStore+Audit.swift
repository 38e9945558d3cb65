extension SQLiteCatalogStore {
    /// Adds an entry to the audit trail in the transaction of `connection`, and forgets entries
    /// (and the keys of moved ones) from before `forgetBefore`.
    static func insertAuditEntry(_ entry: AuditEntry, forgetBefore: Int64, on connection: SQLiteConnection) throws {
        try connection.statement(
            "INSERT INTO audit_log(time, actor, operator, container, environment, action, target, client) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        ).execute([
            .integer(entry.time), .text(entry.actor), .text(entry.operatorName), entry.container.map(SQLiteValue.text) ?? .null,
            entry.environment.map(SQLiteValue.text) ?? .null, .text(entry.action), .text(entry.target),
            entry.clientAddress.map(SQLiteValue.text) ?? .null,
        ])
        try connection.statement("DELETE FROM audit_log WHERE time < ?").execute([.integer(forgetBefore)])
        try connection.statement("DELETE FROM audit_moves WHERE time < ?").execute([.integer(forgetBefore)])
    }

    /// ``LifecycleStorage/insertAuditEntries(fromOutbox:forgetBefore:)``: an entry whose key
    /// the catalog noted already is not written again.
    func insertAuditEntries(fromOutbox entries: [AuditOutboxEntry], forgetBefore: Int64) throws {
        try write { connection in
            let note = try connection.statement("INSERT INTO audit_moves(key, time) VALUES (?, ?) ON CONFLICT DO NOTHING")
            for moved in entries {
                try note.execute([.text(moved.key), .integer(moved.entry.time)])
                guard connection.changes > 0 else { continue }
                try Self.insertAuditEntry(moved.entry, forgetBefore: forgetBefore, on: connection)
            }
        }
    }
}
