extension PostgresCatalogStore: CredentialStorage {
    // MARK: - API tokens

    /// Adds an API token.
    func insertAPIToken(_ token: APIToken) throws {
        try write { connection in
            try connection.execute(
                "INSERT INTO catalog.api_tokens(\(CatalogRows.tokenColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                [
                    .text(token.token), .text(token.container.rawValue), .text(token.environment.rawValue), .text(token.name),
                    .text(token.allowedOrigins.joined(separator: "\n")), .text(token.signInCallback), .integer(token.created),
                ])
        }
    }

    /// The API token `token`, if it exists.
    func apiToken(_ token: String) throws -> APIToken? {
        try read { connection in
            try connection.execute("SELECT \(CatalogRows.tokenColumns) FROM catalog.api_tokens WHERE token = $1", [.text(token)])
                .first(CatalogRows.apiToken)
        }
    }

    /// Removes an API token; `false` when there was none.
    func deleteAPIToken(_ token: String) throws -> Bool {
        try write { connection in
            try connection.execute("DELETE FROM catalog.api_tokens WHERE token = $1", [.text(token)]).affectedRows > 0
        }
    }

    /// A container's API tokens, oldest first.
    func apiTokens(in container: ContainerIdentifier) throws -> [APIToken] {
        try read { connection in
            try connection.execute(
                "SELECT \(CatalogRows.tokenColumns) FROM catalog.api_tokens WHERE container = $1 ORDER BY created, token",
                [.text(container.rawValue)]
            ).map(CatalogRows.apiToken)
        }
    }

    // MARK: - Server-to-server keys

    /// Adds a server-to-server key.
    func insertServerKey(_ key: ServerKey) throws {
        try write { connection in
            try connection.execute(
                "INSERT INTO catalog.server_keys(\(CatalogRows.keyColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                [
                    .text(key.keyID), .text(key.container.rawValue), .text(key.environment.rawValue), .text(key.publicKeyPEM),
                    .text(key.userRecordName), .text(key.name), .integer(key.created),
                ])
        }
    }

    /// The server-to-server key `keyID`, if it exists.
    func serverKey(_ keyID: String) throws -> ServerKey? {
        try read { connection in
            try connection.execute("SELECT \(CatalogRows.keyColumns) FROM catalog.server_keys WHERE key_id = $1", [.text(keyID)])
                .first(CatalogRows.serverKey)
        }
    }

    /// Removes a server-to-server key; `false` when there was none.
    func deleteServerKey(_ keyID: String) throws -> Bool {
        try write { connection in
            try connection.execute("DELETE FROM catalog.server_keys WHERE key_id = $1", [.text(keyID)]).affectedRows > 0
        }
    }

    /// A container's server-to-server keys, oldest first.
    func serverKeys(in container: ContainerIdentifier) throws -> [ServerKey] {
        try read { connection in
            try connection.execute(
                "SELECT \(CatalogRows.keyColumns) FROM catalog.server_keys WHERE container = $1 ORDER BY created, key_id",
                [.text(container.rawValue)]
            ).map(CatalogRows.serverKey)
        }
    }

    // MARK: - Users

    /// Adds a user. - Throws: ``CloudStoreError/exists(_:)`` when the name is taken in the container.
    func insertUser(_ user: AppUser, passwordHash: String) throws {
        try write { connection in
            do {
                try connection.execute(
                    "INSERT INTO catalog.users(\(CatalogRows.userColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                    [
                        .text(user.userRecordName), .text(user.container.rawValue), .text(user.name), .text(user.emailAddress),
                        .text(user.firstName), .text(user.lastName), .integer(user.created), .text(passwordHash),
                        .bool(user.isDiscoverable),
                    ])
            } catch let error as PostgresError where error.isUniqueViolation {
                throw CloudStoreError.exists("A user named '\(user.name)' already exists in \(user.container)")
            }
        }
    }

    /// The user `userRecordName` of a container, if there is one.
    func user(_ userRecordName: String, in container: ContainerIdentifier) throws -> AppUser? {
        try read { connection in
            try connection.execute(
                "SELECT \(CatalogRows.userColumns) FROM catalog.users WHERE container = $1 AND user_record_name = $2",
                [.text(container.rawValue), .text(userRecordName)]
            ).first(CatalogRows.user)
        }
    }

    /// The user called `name` (without regard to case) and the hash of their password.
    func user(named name: String, in container: ContainerIdentifier) throws -> (user: AppUser, passwordHash: String)? {
        try read { connection in
            // `lower` of a "C" text folds ASCII alone, as SQLite's NOCASE does.
            try connection.execute(
                "SELECT \(CatalogRows.userColumns) FROM catalog.users WHERE container = $1 AND lower(name) = lower($2::text COLLATE \"C\")",
                [.text(container.rawValue), .text(name)]
            ).first { row in (try CatalogRows.user(from: row), row.text(7)) }
        }
    }

    /// The user with this email address (compared without case) in a container.
    func user(email: String, in container: ContainerIdentifier) throws -> AppUser? {
        try read { connection in
            try connection.execute(
                """
                SELECT \(CatalogRows.userColumns) FROM catalog.users WHERE container = $1 AND lower(email) = lower($2::text COLLATE "C")
                ORDER BY user_record_name LIMIT 1
                """,
                [.text(container.rawValue), .text(email)]
            ).first(CatalogRows.user)
        }
    }

    /// Sets whether a user may be discovered; false when there is no such user.
    func setDiscoverable(_ discoverable: Bool, of userRecordName: String, in container: ContainerIdentifier) throws -> Bool {
        try write { connection in
            try connection.execute(
                "UPDATE catalog.users SET discoverable = $1 WHERE container = $2 AND user_record_name = $3",
                [.bool(discoverable), .text(container.rawValue), .text(userRecordName)]
            ).affectedRows > 0
        }
    }

    /// A container's users, by name without regard to case.
    func users(in container: ContainerIdentifier) throws -> [AppUser] {
        try read { connection in
            try connection.execute(
                "SELECT \(CatalogRows.userColumns) FROM catalog.users WHERE container = $1 ORDER BY lower(name)",
                [
                    .text(container.rawValue)
                ]
            ).map(CatalogRows.user)
        }
    }

    /// Replaces a user's password hash and, in the same transaction, ends every session of theirs.
    func setPasswordHash(_ hash: String, of userRecordName: String, in container: ContainerIdentifier) throws {
        try write { connection in
            try connection.execute(
                "UPDATE catalog.users SET password = $1 WHERE container = $2 AND user_record_name = $3",
                [.text(hash), .text(container.rawValue), .text(userRecordName)])
            try Self.revokeSessions(of: userRecordName, in: container, on: connection)
        }
    }

    /// Removes a user, their sessions, and the push tokens they hold; `false` when there was none.
    func deleteUser(_ userRecordName: String, in container: ContainerIdentifier) throws -> Bool {
        try write { connection in
            let deleted = try connection.execute(
                "DELETE FROM catalog.users WHERE container = $1 AND user_record_name = $2",
                [.text(container.rawValue), .text(userRecordName)]
            ).affectedRows
            guard deleted > 0 else { return false }
            try Self.revokeSessions(of: userRecordName, in: container, on: connection)
            return true
        }
    }

    // MARK: - Sessions

    /// Adds a web session, last seen when it was made.
    func insertSession(_ session: WebSession) throws {
        try write { connection in
            try connection.execute(
                """
                INSERT INTO catalog.sessions(id, container, environment, user_record_name, token_lifetime, created, last_seen, expires)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                """,
                [
                    .text(session.id), .text(session.container.rawValue), .text(session.environment?.rawValue),
                    .text(session.userRecordName), .integer(session.idleLifetime), .integer(session.created),
                    .integer(session.created), .integer(session.expires),
                ])
        }
    }

    /// The session with `id` and when it was last seen in use, unless it was revoked.
    func session(_ id: String) throws -> (session: WebSession, lastSeen: Int64)? {
        try read { connection in
            try connection.execute(
                "SELECT \(CatalogRows.sessionColumns) FROM catalog.sessions WHERE id = $1 AND revoked = 0", [.text(id)]
            ).first(CatalogRows.session)
        }
    }

    /// Ends the sessions of a container's environment (and those that kept none) as ended by a
    /// reset, and the push tokens users hold there; returns how many sessions were open.
    func revokeSessionsForReset(of container: ContainerIdentifier, _ environment: Environment) throws -> Int {
        try write { connection in
            let ended = try connection.execute(
                """
                UPDATE catalog.sessions SET revoked = 2
                WHERE container = $1 AND (environment = $2 OR environment IS NULL) AND revoked = 0
                """,
                [.text(container.rawValue), .text(environment.rawValue)]
            ).affectedRows
            try connection.execute(
                "DELETE FROM catalog.push_tokens WHERE container = $1 AND environment = $2 AND user_record_name IS NOT NULL",
                [.text(container.rawValue), .text(environment.rawValue)])
            return ended
        }
    }

    /// How many sessions a reset of a container's environment would end (not past their expiry at `now`).
    func openSessionCount(in container: ContainerIdentifier, _ environment: Environment, now: Int64) throws -> Int {
        try read { connection in
            Int(
                try connection.execute(
                    """
                    SELECT count(*) FROM catalog.sessions
                    WHERE container = $1 AND (environment = $2 OR environment IS NULL) AND revoked = 0 AND expires > $3
                    """,
                    [.text(container.rawValue), .text(environment.rawValue), .integer(now)]
                ).scalarInteger() ?? 0)
        }
    }

    /// Whether the session with `id` was ended by a reset of its environment.
    func sessionWasEndedByReset(_ id: String) throws -> Bool {
        try read { connection in
            try connection.execute("SELECT revoked FROM catalog.sessions WHERE id = $1", [.text(id)]).scalarInteger() == 2
        }
    }

    /// Ends a session, and the push tokens created or registered in it.
    func revokeSession(_ id: String) throws {
        try write { connection in
            try connection.execute("UPDATE catalog.sessions SET revoked = 1 WHERE id = $1", [.text(id)])
            try connection.execute("DELETE FROM catalog.push_tokens WHERE session = $1", [.text(id)])
        }
    }

    /// Ends every session of a user; returns how many were open.
    func revokeSessions(of userRecordName: String, in container: ContainerIdentifier) throws -> Int {
        try write { connection in try Self.revokeSessions(of: userRecordName, in: container, on: connection) }
    }

    /// Ends the open sessions of a user, and deletes the push tokens they hold, inside the
    /// caller's transaction; returns how many sessions there were.
    @discardableResult
    private static func revokeSessions(of userRecordName: String, in container: ContainerIdentifier, on connection: PostgresConnection)
        throws -> Int
    {
        let ended = try connection.execute(
            "UPDATE catalog.sessions SET revoked = 1 WHERE container = $1 AND user_record_name = $2 AND revoked = 0",
            [.text(container.rawValue), .text(userRecordName)]
        ).affectedRows
        // What the sessions could receive ends with them: a token made in a stolen session
        // must not outlive the sign-out that ended it.
        try connection.execute(
            "DELETE FROM catalog.push_tokens WHERE container = $1 AND user_record_name = $2",
            [.text(container.rawValue), .text(userRecordName)])
        return ended
    }

    /// How many sessions of a user are open (not revoked, not past their expiry at `now`).
    func openSessionCount(of userRecordName: String, in container: ContainerIdentifier, now: Int64) throws -> Int {
        try read { connection in
            Int(
                try connection.execute(
                    "SELECT count(*) FROM catalog.sessions WHERE container = $1 AND user_record_name = $2 AND revoked = 0 AND expires > $3",
                    [.text(container.rawValue), .text(userRecordName), .integer(now)]
                ).scalarInteger() ?? 0)
        }
    }

    /// Records that a session was used at `time`, without moving the change counter.
    func touchSession(_ id: String, at time: Int64) throws {
        // Outside `write`, which would move the change counter and empty every credential cache.
        try read { connection in
            try connection.execute(
                "UPDATE catalog.sessions SET last_seen = greatest(last_seen, $1) WHERE id = $2", [.integer(time), .text(id)])
        }
    }

    // MARK: - Push tokens

    /// Adds a push token.
    func insertPushToken(_ token: PushToken) throws {
        try write { connection in
            try connection.execute(
                "INSERT INTO catalog.push_tokens(\(CatalogRows.pushTokenColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                [
                    .text(token.token), .text(token.container.rawValue), .text(token.environment.rawValue),
                    .text(token.apnsEnvironment), .text(token.userRecordName), .integer(token.created), .text(token.session),
                    .integer(token.bound), .integer(token.lastUsed), .integer(token.lastPolled),
                ])
        }
    }

    /// The push token `token`, if it exists.
    /// The push tokens among `values` that exist, in no particular order: one read for many.
    func pushTokens(among values: [String]) throws -> [PushToken] {
        guard !values.isEmpty else { return [] }
        return try read { connection in
            try connection.execute(
                "SELECT \(CatalogRows.pushTokenColumns) FROM catalog.push_tokens WHERE token = ANY($1::text[])", [.textArray(values)]
            ).map(CatalogRows.pushToken)
        }
    }

    /// The push tokens `user` holds in the container's environment, oldest bound first.
    func pushTokens(of user: String, in container: ContainerIdentifier, _ environment: Environment) throws -> [PushToken] {
        try read { connection in
            try connection.execute(
                """
                SELECT \(CatalogRows.pushTokenColumns) FROM catalog.push_tokens
                WHERE container = $1 AND environment = $2 AND user_record_name = $3 ORDER BY bound, created, token COLLATE "C"
                """,
                [.text(container.rawValue), .text(environment.rawValue), .text(user)]
            ).map(CatalogRows.pushToken)
        }
    }

    /// The push tokens users hold in the container's environment, by user, oldest bound first.
    func boundPushTokens(in container: ContainerIdentifier, _ environment: Environment) throws -> [PushToken] {
        try read { connection in
            try connection.execute(
                """
                SELECT \(CatalogRows.pushTokenColumns) FROM catalog.push_tokens
                WHERE container = $1 AND environment = $2 AND user_record_name IS NOT NULL
                ORDER BY user_record_name COLLATE "C", bound, created, token COLLATE "C"
                """,
                [.text(container.rawValue), .text(environment.rawValue)]
            ).map(CatalogRows.pushToken)
        }
    }

    /// Binds a push token to a user, for a session, at `time` (also its last use).
    func bindPushToken(_ token: String, to userRecordName: String, session: String?, at time: Int64) throws {
        try write { connection in
            try connection.execute(
                "UPDATE catalog.push_tokens SET user_record_name = $1, session = $2, bound = coalesce(bound, $3), last_used = $3 WHERE token = $4",
                [.text(userRecordName), .text(session), .integer(time), .text(token)])
        }
    }

    /// Records that a push token was used at `time`, without moving the change counter.
    func notePushTokenPoll(_ token: String, at time: Int64) throws {
        // Outside `write`, as a touch: no cache holds when a token was polled.
        try read { connection in
            try connection.execute(
                "UPDATE catalog.push_tokens SET last_polled = $1, last_used = greatest(last_used, $1) WHERE token = $2",
                [.integer(time), .text(token)])
        }
    }

    func touchPushToken(_ token: String, at time: Int64) throws {
        // Outside `write`, which would move the change counter and empty every credential cache.
        try read { connection in
            try connection.execute(
                "UPDATE catalog.push_tokens SET last_used = greatest(last_used, $1) WHERE token = $2", [.integer(time), .text(token)])
        }
    }

    /// Deletes push tokens; returns how many there were.
    func deletePushTokens(_ tokens: [String]) throws -> Int {
        guard !tokens.isEmpty else { return 0 }
        return try write { connection in
            try connection.execute("DELETE FROM catalog.push_tokens WHERE token = ANY($1::text[])", [.textArray(tokens)]).affectedRows
        }
    }

    /// How many push tokens of a container's environment no user holds.
    func unboundPushTokenCount(in container: ContainerIdentifier, _ environment: Environment) throws -> Int {
        try read { connection in
            Int(
                try connection.execute(
                    "SELECT count(*) FROM catalog.push_tokens WHERE container = $1 AND environment = $2 AND user_record_name IS NULL",
                    [.text(container.rawValue), .text(environment.rawValue)]
                ).scalarInteger() ?? 0)
        }
    }

    /// Removes push tokens no user holds that were made before `time`; returns how many.
    func deleteUnboundPushTokens(in container: ContainerIdentifier, _ environment: Environment, createdBefore time: Int64) throws -> Int {
        try write { connection in
            try connection.execute(
                """
                DELETE FROM catalog.push_tokens
                WHERE container = $1 AND environment = $2 AND user_record_name IS NULL AND created < $3
                """,
                [.text(container.rawValue), .text(environment.rawValue), .integer(time)]
            ).affectedRows
        }
    }
}
