extension PostgresCatalogStore: OperatorStorage {
    // MARK: - Operators

    // Operators' names are compared without regard to ASCII case, wherever they are stored:
    // `lower` of a "C" text folds ASCII alone, as SQLite's NOCASE does.

    /// Adds an operator. - Throws: ``CloudStoreError/exists(_:)`` when the name is taken, in any case.
    func insertOperator(_ account: OperatorAccount, passwordHash: String) throws {
        try write { connection in
            do {
                try connection.execute(
                    "INSERT INTO catalog.operators(name, password, created, role, containers) VALUES ($1, $2, $3, $4, $5)",
                    [
                        .text(account.name), .text(passwordHash), .integer(account.created), .text(account.role.rawValue),
                        .text(CatalogRows.operatorContainers(account.containers)),
                    ])
            } catch let error as PostgresError where error.isUniqueViolation {
                throw CloudStoreError.exists("An operator named '\(account.name)' already exists")
            }
        }
    }

    /// Every operator, by name without regard to case.
    func operators() throws -> [OperatorAccount] {
        try read { connection in
            try connection.execute("SELECT \(CatalogRows.operatorColumns) FROM catalog.operators ORDER BY lower(name)").map {
                CatalogRows.operatorAccount(from: $0)
            }
        }
    }

    /// The operator called `name` (without regard to case) and the hash of their password.
    func operatorAccount(named name: String) throws -> (account: OperatorAccount, passwordHash: String)? {
        try read { connection in
            try connection.execute(
                "SELECT \(CatalogRows.operatorColumns), password FROM catalog.operators WHERE lower(name) = lower($1::text COLLATE \"C\")",
                [.text(name)]
            ).first { row in (CatalogRows.operatorAccount(from: row), row.text(4)) }
        }
    }

    /// Replaces an operator's password hash and ends their sessions, in one transaction; `false` when there is no such operator.
    func setOperatorPasswordHash(_ hash: String, of name: String) throws -> Bool {
        try write { connection in
            let updated = try connection.execute(
                "UPDATE catalog.operators SET password = $1 WHERE lower(name) = lower($2::text COLLATE \"C\")",
                [.text(hash), .text(name)]
            ).affectedRows
            guard updated > 0 else { return false }
            try Self.revokeOperatorSessions(of: name, on: connection)
            return true
        }
    }

    /// Sets an operator's role and containers; `false` when there is no such operator.
    func setOperatorAccess(role: OperatorRole, containers: [ContainerIdentifier], of name: String) throws -> Bool {
        try write { connection in
            try connection.execute(
                "UPDATE catalog.operators SET role = $1, containers = $2 WHERE lower(name) = lower($3::text COLLATE \"C\")",
                [.text(role.rawValue), .text(CatalogRows.operatorContainers(containers)), .text(name)]
            ).affectedRows > 0
        }
    }

    /// Removes an operator with their sessions and management tokens; `false` when there was none.
    func deleteOperator(named name: String) throws -> Bool {
        try write { connection in
            let deleted = try connection.execute(
                "DELETE FROM catalog.operators WHERE lower(name) = lower($1::text COLLATE \"C\")", [.text(name)]
            ).affectedRows
            guard deleted > 0 else { return false }
            try Self.revokeOperatorSessions(of: name, on: connection)
            try connection.execute(
                "UPDATE catalog.management_tokens SET revoked = true WHERE lower(operator) = lower($1::text COLLATE \"C\")",
                [.text(name)])
            return true
        }
    }

    /// Ends every session of an operator inside the caller's transaction.
    private static func revokeOperatorSessions(of name: String, on connection: PostgresConnection) throws {
        try connection.execute(
            "UPDATE catalog.operator_sessions SET revoked = true WHERE lower(operator) = lower($1::text COLLATE \"C\")", [.text(name)])
    }

    // MARK: - Sessions

    /// Adds an operator's session, last used at `lastSeen`.
    func insertOperatorSession(_ session: OperatorSession, lastSeen: Int64) throws {
        try write { connection in
            try connection.execute(
                "INSERT INTO catalog.operator_sessions(id, operator, csrf, created, last_seen, expires) VALUES ($1, $2, $3, $4, $5, $6)",
                [
                    .text(session.id), .text(session.operatorName), .text(session.csrfToken), .integer(session.created),
                    .integer(lastSeen), .integer(session.expires),
                ])
        }
    }

    /// The session with `id` and when it was last used, unless it was revoked.
    func operatorSession(_ id: String) throws -> (session: OperatorSession, lastSeen: Int64)? {
        try read { connection in
            try connection.execute(
                "SELECT id, operator, csrf, created, expires, last_seen FROM catalog.operator_sessions WHERE id = $1 AND NOT revoked",
                [.text(id)]
            ).first { row in
                (
                    OperatorSession(
                        id: row.text(0), operatorName: row.text(1), csrfToken: row.text(2), created: row.integer(3),
                        expires: row.integer(4)), row.integer(5)
                )
            }
        }
    }

    /// Ends an operator's session.
    func revokeOperatorSession(_ id: String) throws {
        try write { connection in
            try connection.execute("UPDATE catalog.operator_sessions SET revoked = true WHERE id = $1", [.text(id)])
        }
    }

    /// Records a use of a session, without moving the change counter.
    func touchOperatorSession(_ id: String, at time: Int64) throws {
        // Outside `write`, which would move the change counter and empty every credential cache.
        try read { connection in
            try connection.execute(
                "UPDATE catalog.operator_sessions SET last_seen = greatest(last_seen, $1) WHERE id = $2", [.integer(time), .text(id)])
        }
    }

    // MARK: - Management tokens

    /// Adds a management token with the hash of its secret.
    func insertManagementToken(_ token: ManagementToken, secretHash: String) throws {
        try write { connection in
            try connection.execute(
                "INSERT INTO catalog.management_tokens(id, hash, operator, name, created) VALUES ($1, $2, $3, $4, $5)",
                [.text(token.id), .text(secretHash), .text(token.operatorName), .text(token.name), .integer(token.created)])
        }
    }

    /// The unrevoked token with `id` and the hash of its secret.
    func managementToken(_ id: String) throws -> (token: ManagementToken, secretHash: String)? {
        try read { connection in
            try connection.execute(
                "SELECT \(CatalogRows.managementTokenColumns), hash FROM catalog.management_tokens WHERE id = $1 AND NOT revoked",
                [.text(id)]
            ).first { row in (CatalogRows.managementToken(from: row), row.text(5)) }
        }
    }

    /// The unrevoked management tokens, by operator without regard to case, then oldest first.
    func managementTokens() throws -> [ManagementToken] {
        try read { connection in
            try connection.execute(
                """
                SELECT \(CatalogRows.managementTokenColumns) FROM catalog.management_tokens
                WHERE NOT revoked ORDER BY lower(operator), created, id
                """
            ).map(CatalogRows.managementToken)
        }
    }

    /// Revokes a token; `false` when there was no such unrevoked token.
    func revokeManagementToken(_ id: String) throws -> Bool {
        try write { connection in
            try connection.execute(
                "UPDATE catalog.management_tokens SET revoked = true WHERE id = $1 AND NOT revoked", [.text(id)]
            ).affectedRows > 0
        }
    }

    /// Records a use of a token, without moving the change counter.
    func touchManagementToken(_ id: String, at time: Int64) throws {
        // Outside `write`, which would move the change counter and empty every credential cache.
        try read { connection in
            try connection.execute("UPDATE catalog.management_tokens SET last_used = $1 WHERE id = $2", [.integer(time), .text(id)])
        }
    }
}
