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
            try connection.statement("SELECT \(CatalogRows.tokenColumns) FROM api_tokens WHERE token = ?").firstRow(
                [.text(token)], CatalogRows.apiToken)
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
            try connection.statement("SELECT \(CatalogRows.keyColumns) FROM server_keys WHERE key_id = ?").firstRow(
                [.text(keyID)], CatalogRows.serverKey)
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
            let ended = connection.changes
            try connection.statement("DELETE FROM push_tokens WHERE container = ? AND environment = ? AND user_record_name IS NOT NULL")
                .execute([.text(container.rawValue), .text(environment.rawValue)])
            return ended
        }
    }

    func openSessionCount(in container: ContainerIdentifier, _ environment: Environment, now: Int64) throws -> Int {
        try read { connection in
            Int(
                try connection.statement(
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
        try write { connection in
            try connection.statement("UPDATE sessions SET revoked = 1 WHERE id = ?").execute([.text(id)])
            try connection.statement("DELETE FROM push_tokens WHERE session = ?").execute([.text(id)])
        }
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
        let ended = connection.changes
        // What the sessions could receive ends with them: a token made in a stolen session
        // must not outlive the sign-out that ended it.
        try connection.statement("DELETE FROM push_tokens WHERE container = ? AND user_record_name = ?")
            .execute([.text(container.rawValue), .text(userRecordName)])
        return ended
    }

    func openSessionCount(of userRecordName: String, in container: ContainerIdentifier, now: Int64) throws -> Int {
        try read { connection in
            Int(
                try connection.statement(
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
                "INSERT INTO push_tokens(\(CatalogRows.pushTokenColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            ).execute([
                .text(token.token), .text(token.container.rawValue), .text(token.environment.rawValue),
                .text(token.apnsEnvironment), .text(token.userRecordName), .integer(token.created), .text(token.session),
                .integer(token.bound), .integer(token.lastUsed), .integer(token.lastPolled),
            ])
        }
    }

    func pushTokens(among values: [String]) throws -> [PushToken] {
        try read { connection in
            let lookup = try connection.statement("SELECT \(CatalogRows.pushTokenColumns) FROM push_tokens WHERE token = ?")
            return try values.compactMap { try lookup.firstRow([.text($0)], CatalogRows.pushToken) }
        }
    }

    func pushTokens(of user: String, in container: ContainerIdentifier, _ environment: Environment) throws -> [PushToken] {
        try read { connection in
            try connection.statement(
                """
                SELECT \(CatalogRows.pushTokenColumns) FROM push_tokens WHERE container = ? AND environment = ? AND user_record_name = ?
                ORDER BY bound, created, token
                """
            ).rows([.text(container.rawValue), .text(environment.rawValue), .text(user)], CatalogRows.pushToken)
        }
    }

    func boundPushTokens(in container: ContainerIdentifier, _ environment: Environment) throws -> [PushToken] {
        try read { connection in
            try connection.statement(
                """
                SELECT \(CatalogRows.pushTokenColumns) FROM push_tokens
                WHERE container = ? AND environment = ? AND user_record_name IS NOT NULL ORDER BY user_record_name, bound, created, token
                """
            ).rows([.text(container.rawValue), .text(environment.rawValue)], CatalogRows.pushToken)
        }
    }

    func bindPushToken(_ token: String, to userRecordName: String, session: String?, at time: Int64) throws {
        try write { connection in
            try connection.statement(
                "UPDATE push_tokens SET user_record_name = ?, session = ?, bound = coalesce(bound, ?), last_used = ? WHERE token = ?"
            ).execute([.text(userRecordName), .text(session), .integer(time), .integer(time), .text(token)])
        }
    }

    func notePushTokenPoll(_ token: String, at time: Int64) throws {
        // Outside `write`, as a touch: no cache holds when a token was polled.
        try database.write { connection in
            try connection.statement("UPDATE push_tokens SET last_polled = ?1, last_used = max(last_used, ?1) WHERE token = ?2").execute([
                .integer(time), .text(token),
            ])
        }
    }

    func touchPushToken(_ token: String, at time: Int64) throws {
        // Outside `write`, which would move the change counter and empty every credential cache.
        try database.write { connection in
            try connection.statement("UPDATE push_tokens SET last_used = max(last_used, ?) WHERE token = ?").execute([
                .integer(time), .text(token),
            ])
        }
    }

    func deletePushTokens(_ tokens: [String]) throws -> Int {
        try write { connection in
            let delete = try connection.statement("DELETE FROM push_tokens WHERE token = ?")
            var deleted = 0
            for token in tokens {
                try delete.execute([.text(token)])
                deleted += connection.changes
            }
            return deleted
        }
    }

    func unboundPushTokenCount(in container: ContainerIdentifier, _ environment: Environment) throws -> Int {
        try read { connection in
            Int(
                try connection.statement(
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
}
