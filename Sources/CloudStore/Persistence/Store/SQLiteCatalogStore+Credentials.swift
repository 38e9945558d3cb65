extension SQLiteCatalogStore: CredentialStorage {
    /// The change counter as the file holds it now.
    func storedChangeCounter() throws -> Int64 {
        try read { connection in
            try connection.statement("SELECT CAST(value AS INTEGER) FROM settings WHERE key = 'change_counter'").scalarInteger() ?? 0
        }
    }

    // MARK: - API tokens

    func insertAPIToken(_ token: APIToken) throws {
        try write { connection in
            try connection.statement("INSERT INTO api_tokens(\(CatalogRows.tokenColumns)) VALUES (?, ?, ?, ?, ?, ?, ?)").execute([
                .text(token.token), .text(token.container.rawValue), .text(token.environment.rawValue), .text(token.name),
                .text(token.allowedOrigins.joined(separator: "\n")), .text(token.signInCallback), .integer(token.created),
            ])
        }
    }

    func apiToken(_ token: String) throws -> APIToken? {
        try read { connection in
            try connection.statement("SELECT \(CatalogRows.tokenColumns) FROM api_tokens WHERE token = ?").firstRow([.text(token)], CatalogRows.apiToken)
        }
    }

    func deleteAPIToken(_ token: String) throws -> Bool {
        try write { connection in
            try connection.statement("DELETE FROM api_tokens WHERE token = ?").execute([.text(token)])
            return connection.changes > 0
        }
    }

    func apiTokens(in container: ContainerIdentifier) throws -> [APIToken] {
        try read { connection in
            try connection.statement("SELECT \(CatalogRows.tokenColumns) FROM api_tokens WHERE container = ? ORDER BY created, token")
                .rows([.text(container.rawValue)], CatalogRows.apiToken)
        }
    }

    // MARK: - Server-to-server keys

    func insertServerKey(_ key: ServerKey) throws {
        try write { connection in
            try connection.statement("INSERT INTO server_keys(\(CatalogRows.keyColumns)) VALUES (?, ?, ?, ?, ?, ?, ?)").execute([
                .text(key.keyID), .text(key.container.rawValue), .text(key.environment.rawValue), .text(key.publicKeyPEM),
                .text(key.userRecordName), .text(key.name), .integer(key.created),
            ])
        }
    }

    func serverKey(_ keyID: String) throws -> ServerKey? {
        try read { connection in
            try connection.statement("SELECT \(CatalogRows.keyColumns) FROM server_keys WHERE key_id = ?").firstRow([.text(keyID)], CatalogRows.serverKey)
        }
    }

    func deleteServerKey(_ keyID: String) throws -> Bool {
        try write { connection in
            try connection.statement("DELETE FROM server_keys WHERE key_id = ?").execute([.text(keyID)])
            return connection.changes > 0
        }
    }

    func serverKeys(in container: ContainerIdentifier) throws -> [ServerKey] {
        try read { connection in
            try connection.statement("SELECT \(CatalogRows.keyColumns) FROM server_keys WHERE container = ? ORDER BY created, key_id")
                .rows([.text(container.rawValue)], CatalogRows.serverKey)
        }
    }

    // MARK: - Users

    func insertUser(_ user: AppUser, passwordHash: String) throws {
        try write { connection in
            do {
                try connection.statement("INSERT INTO users(\(CatalogRows.userColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)").execute([
                    .text(user.userRecordName), .text(user.container.rawValue), .text(user.name), .text(user.emailAddress),
                    .text(user.firstName), .text(user.lastName), .integer(user.created), .text(passwordHash),
                    .integer(user.isDiscoverable ? 1 : 0),
                ])
            } catch let error as SQLiteError where error.isUniqueViolation {
                throw CloudStoreError.exists("A user named '\(user.name)' already exists in \(user.container)")
            }
        }
    }

    func user(_ userRecordName: String, in container: ContainerIdentifier) throws -> AppUser? {
        try read { connection in
            try connection.statement("SELECT \(CatalogRows.userColumns) FROM users WHERE container = ? AND user_record_name = ?")
                .firstRow([.text(container.rawValue), .text(userRecordName)], CatalogRows.user)
        }
    }

    func user(named name: String, in container: ContainerIdentifier) throws -> (user: AppUser, passwordHash: String)? {
        try read { connection in
            try connection.statement("SELECT \(CatalogRows.userColumns) FROM users WHERE container = ? AND name = ? COLLATE NOCASE")
                .firstRow([.text(container.rawValue), .text(name)]) { row in (try CatalogRows.user(from: row), row.text(7)) }
        }
    }

    func user(email: String, in container: ContainerIdentifier) throws -> AppUser? {
        try read { connection in
            try connection.statement("SELECT \(CatalogRows.userColumns) FROM users WHERE container = ? AND email = ? COLLATE NOCASE")
                .firstRow([.text(container.rawValue), .text(email)], CatalogRows.user)
        }
    }

    func setDiscoverable(_ discoverable: Bool, of userRecordName: String, in container: ContainerIdentifier) throws -> Bool {
        try write { connection in
            try connection.statement("UPDATE users SET discoverable = ? WHERE container = ? AND user_record_name = ?")
                .execute([.integer(discoverable ? 1 : 0), .text(container.rawValue), .text(userRecordName)])
            return connection.changes > 0
        }
    }

    func users(in container: ContainerIdentifier) throws -> [AppUser] {
        try read { connection in
            try connection.statement("SELECT \(CatalogRows.userColumns) FROM users WHERE container = ? ORDER BY name COLLATE NOCASE")
                .rows([.text(container.rawValue)], CatalogRows.user)
        }
    }

    func setPasswordHash(_ hash: String, of userRecordName: String, in container: ContainerIdentifier) throws {
        try write { connection in
            try connection.statement("UPDATE users SET password = ? WHERE container = ? AND user_record_name = ?")
                .execute([.text(hash), .text(container.rawValue), .text(userRecordName)])
            try Self.revokeSessions(of: userRecordName, in: container, on: connection)
        }
    }

    func deleteUser(_ userRecordName: String, in container: ContainerIdentifier) throws -> Bool {
        try write { connection in
            try connection.statement("DELETE FROM users WHERE container = ? AND user_record_name = ?")
                .execute([.text(container.rawValue), .text(userRecordName)])
            guard connection.changes > 0 else { return false }
            try Self.revokeSessions(of: userRecordName, in: container, on: connection)
            try connection.statement("UPDATE push_tokens SET user_record_name = NULL WHERE container = ? AND user_record_name = ?")
                .execute([.text(container.rawValue), .text(userRecordName)])
            return true
        }
    }

    // MARK: - Sessions

    func insertSession(_ session: WebSession) throws {
        try write { connection in
            try connection.statement(
                """
                INSERT INTO sessions(id, container, environment, user_record_name, token_lifetime, created, last_seen, expires)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """
            ).execute([
                .text(session.id), .text(session.container.rawValue), .text(session.environment?.rawValue), .text(session.userRecordName),
                .integer(session.idleLifetime), .integer(session.created), .integer(session.created), .integer(session.expires),
            ])
        }
    }

    func session(_ id: String) throws -> (session: WebSession, lastSeen: Int64)? {
        try read { connection in
            try connection.statement(
                "SELECT \(CatalogRows.sessionColumns) FROM sessions WHERE id = ? AND revoked = 0"
            ).firstRow([.text(id)], CatalogRows.session)
        }
    }

    func revokeSessionsForReset(of container: ContainerIdentifier, _ environment: Environment) throws -> Int {
        try write { connection in
            try connection.statement(
                "UPDATE sessions SET revoked = 2 WHERE container = ? AND (environment = ? OR environment IS NULL) AND revoked = 0"
            ).execute([.text(container.rawValue), .text(environment.rawValue)])
            return connection.changes
        }
    }

    func openSessionCount(in container: ContainerIdentifier, _ environment: Environment, now: Int64) throws -> Int {
        try read { connection in
            Int(try connection.statement(
                """
                SELECT count(*) FROM sessions
                WHERE container = ? AND (environment = ? OR environment IS NULL) AND revoked = 0 AND expires > ?
                """
            ).scalarInteger([.text(container.rawValue), .text(environment.rawValue), .integer(now)]) ?? 0)
        }
    }

    func sessionWasEndedByReset(_ id: String) throws -> Bool {
        try read { connection in
            try connection.statement("SELECT revoked FROM sessions WHERE id = ?").scalarInteger([.text(id)]) == 2
        }
    }

    func revokeSession(_ id: String) throws {
        try write { connection in try connection.statement("UPDATE sessions SET revoked = 1 WHERE id = ?").execute([.text(id)]) }
    }

    func revokeSessions(of userRecordName: String, in container: ContainerIdentifier) throws -> Int {
        try write { connection in try Self.revokeSessions(of: userRecordName, in: container, on: connection) }
    }

    @discardableResult
    private static func revokeSessions(of userRecordName: String, in container: ContainerIdentifier, on connection: SQLiteConnection) throws
        -> Int
    {
        try connection.statement("UPDATE sessions SET revoked = 1 WHERE container = ? AND user_record_name = ? AND revoked = 0")
            .execute([.text(container.rawValue), .text(userRecordName)])
        return connection.changes
    }

    func openSessionCount(of userRecordName: String, in container: ContainerIdentifier, now: Int64) throws -> Int {
        try read { connection in
            Int(try connection.statement(
                "SELECT count(*) FROM sessions WHERE container = ? AND user_record_name = ? AND revoked = 0 AND expires > ?"
            ).scalarInteger([.text(container.rawValue), .text(userRecordName), .integer(now)]) ?? 0)
        }
    }

    func touchSession(_ id: String, at time: Int64) throws {
        // Outside `write`, which would move the change counter and empty every credential cache.
        try database.write { connection in
            try connection.statement("UPDATE sessions SET last_seen = max(last_seen, ?) WHERE id = ?").execute([.integer(time), .text(id)])
        }
    }

    // MARK: - Push tokens

    func insertPushToken(_ token: PushToken) throws {
        try write { connection in
            try connection.statement(
                "INSERT INTO push_tokens(token, container, environment, apns_environment, user_record_name, created) VALUES (?, ?, ?, ?, ?, ?)"
            ).execute([
                .text(token.token), .text(token.container.rawValue), .text(token.environment.rawValue),
                .text(token.apnsEnvironment), .text(token.userRecordName), .integer(token.created),
            ])
        }
    }

    func pushToken(_ token: String) throws -> PushToken? {
        try read { connection in
            try connection.statement(
                "SELECT token, container, environment, apns_environment, user_record_name, created FROM push_tokens WHERE token = ?"
            ).firstRow([.text(token)]) { row in
                PushToken(
                    token: row.text(0), container: try ContainerIdentifier(row.text(1)), environment: try CatalogRows.environment(row.text(2)),
                    apnsEnvironment: row.text(3), userRecordName: row.optionalText(4), created: row.integer(5))
            }
        }
    }

    func pushTokens(of user: String, in container: ContainerIdentifier, _ environment: Environment) throws -> [String] {
        try read { connection in
            try connection.statement(
                "SELECT token FROM push_tokens WHERE container = ? AND environment = ? AND user_record_name = ? ORDER BY created, token"
            ).rows([.text(container.rawValue), .text(environment.rawValue), .text(user)]) { $0.text(0) }
        }
    }

    func unboundPushTokenCount(in container: ContainerIdentifier, _ environment: Environment) throws -> Int {
        try read { connection in
            Int(try connection.statement(
                "SELECT count(*) FROM push_tokens WHERE container = ? AND environment = ? AND user_record_name IS NULL"
            ).scalarInteger([.text(container.rawValue), .text(environment.rawValue)]) ?? 0)
        }
    }

    func deleteUnboundPushTokens(in container: ContainerIdentifier, _ environment: Environment, createdBefore time: Int64) throws -> Int {
        try write { connection in
            try connection.statement(
                "DELETE FROM push_tokens WHERE container = ? AND environment = ? AND user_record_name IS NULL AND created < ?"
            ).execute([.text(container.rawValue), .text(environment.rawValue), .integer(time)])
            return connection.changes
        }
    }

    func setPushTokenUser(_ token: String, userRecordName: String?) throws {
        try write { connection in
            try connection.statement("UPDATE push_tokens SET user_record_name = ? WHERE token = ?").execute([.text(userRecordName), .text(token)])
        }
    }

}
