extension SQLiteCatalogStore: OperatorStorage {
    // MARK: - Operators

    func insertOperator(_ account: OperatorAccount, passwordHash: String) throws {
        try write { connection in
            do {
                try connection.statement("INSERT INTO operators(name, password, created, role, containers) VALUES (?, ?, ?, ?, ?)")
                    .execute([
                        .text(account.name), .text(passwordHash), .integer(account.created), .text(account.role.rawValue),
                        .text(CatalogRows.operatorContainers(account.containers)),
                    ])
            } catch let error as SQLiteError where error.isUniqueViolation {
                throw CloudStoreError.exists("An operator named '\(account.name)' already exists")
            }
        }
    }

    func operators() throws -> [OperatorAccount] {
        try read { connection in
            try connection.statement("SELECT \(CatalogRows.operatorColumns) FROM operators ORDER BY name").rows(
                [], CatalogRows.operatorAccount)
        }
    }

    func operatorAccount(named name: String) throws -> (account: OperatorAccount, passwordHash: String)? {
        try read { connection in
            try connection.statement("SELECT \(CatalogRows.operatorColumns), password FROM operators WHERE name = ?").firstRow([
                .text(name)
            ]) { row in
                (CatalogRows.operatorAccount(from: row), row.text(4))
            }
        }
    }

    func setOperatorPasswordHash(_ hash: String, of name: String) throws -> Bool {
        try write { connection in
            try connection.statement("UPDATE operators SET password = ? WHERE name = ?").execute([.text(hash), .text(name)])
            guard connection.changes > 0 else { return false }
            try connection.statement("UPDATE operator_sessions SET revoked = 1 WHERE operator = ?").execute([.text(name)])
            return true
        }
    }

    func setOperatorAccess(role: OperatorRole, containers: [ContainerIdentifier], of name: String) throws -> Bool {
        try write { connection in
            try connection.statement("UPDATE operators SET role = ?, containers = ? WHERE name = ?")
                .execute([.text(role.rawValue), .text(CatalogRows.operatorContainers(containers)), .text(name)])
            return connection.changes > 0
        }
    }

    func deleteOperator(named name: String) throws -> Bool {
        try write { connection in
            try connection.statement("DELETE FROM operators WHERE name = ?").execute([.text(name)])
            guard connection.changes > 0 else { return false }
            try connection.statement("UPDATE operator_sessions SET revoked = 1 WHERE operator = ?").execute([.text(name)])
            try connection.statement("UPDATE management_tokens SET revoked = 1 WHERE operator = ?").execute([.text(name)])
            return true
        }
    }

    // MARK: - Sessions

    func insertOperatorSession(_ session: OperatorSession, lastSeen: Int64) throws {
        try write { connection in
            try connection.statement(
                "INSERT INTO operator_sessions(id, operator, csrf, created, last_seen, expires) VALUES (?, ?, ?, ?, ?, ?)"
            ).execute([
                .text(session.id), .text(session.operatorName), .text(session.csrfToken), .integer(session.created),
                .integer(lastSeen), .integer(session.expires),
            ])
        }
    }

    func operatorSession(_ id: String) throws -> (session: OperatorSession, lastSeen: Int64)? {
        try read { connection in
            try connection.statement(
                "SELECT id, operator, csrf, created, expires, last_seen FROM operator_sessions WHERE id = ? AND revoked = 0"
            ).firstRow([.text(id)]) { row in
                (
                    OperatorSession(
                        id: row.text(0), operatorName: row.text(1), csrfToken: row.text(2), created: row.integer(3),
                        expires: row.integer(4)), row.integer(5)
                )
            }
        }
    }

    func revokeOperatorSession(_ id: String) throws {
        try write { connection in
            try connection.statement("UPDATE operator_sessions SET revoked = 1 WHERE id = ?").execute([.text(id)])
        }
    }

    func touchOperatorSession(_ id: String, at time: Int64) throws {
        // Outside `write`, which would move the change counter and empty every credential cache.
        try database.write { connection in
            try connection.statement("UPDATE operator_sessions SET last_seen = max(last_seen, ?) WHERE id = ?")
                .execute([.integer(time), .text(id)])
        }
    }

    // MARK: - Management tokens

    func insertManagementToken(_ token: ManagementToken, secretHash: String) throws {
        try write { connection in
            try connection.statement("INSERT INTO management_tokens(id, hash, operator, name, created) VALUES (?, ?, ?, ?, ?)")
                .execute([.text(token.id), .text(secretHash), .text(token.operatorName), .text(token.name), .integer(token.created)])
        }
    }

    func managementToken(_ id: String) throws -> (token: ManagementToken, secretHash: String)? {
        try read { connection in
            try connection.statement(
                "SELECT \(CatalogRows.managementTokenColumns), hash FROM management_tokens WHERE id = ? AND revoked = 0"
            ).firstRow([.text(id)]) { row in (CatalogRows.managementToken(from: row), row.text(5)) }
        }
    }

    func managementTokens() throws -> [ManagementToken] {
        try read { connection in
            try connection.statement(
                "SELECT \(CatalogRows.managementTokenColumns) FROM management_tokens WHERE revoked = 0 ORDER BY operator, created"
            ).rows([], CatalogRows.managementToken)
        }
    }

    func revokeManagementToken(_ id: String) throws -> Bool {
        try write { connection in
            try connection.statement("UPDATE management_tokens SET revoked = 1 WHERE id = ? AND revoked = 0").execute([.text(id)])
            return connection.changes > 0
        }
    }

    func touchManagementToken(_ id: String, at time: Int64) throws {
        try database.write { connection in
            try connection.statement("UPDATE management_tokens SET last_used = ? WHERE id = ?").execute([.integer(time), .text(id)])
        }
    }
}
