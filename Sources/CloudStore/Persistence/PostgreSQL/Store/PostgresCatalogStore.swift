import Synchronization

/// The catalog on PostgreSQL: containers, credentials, operators and server-wide settings, in
/// the schema `catalog` of a database that several processes may share.
///
/// It keeps the SQLite catalog's semantics (``SQLiteCatalogStore``): every write transaction
/// moves the change counter, uses of sessions and tokens do not; names are compared without
/// regard to ASCII case. Failures leave it as ``CloudStoreError``s.
final class PostgresCatalogStore: CatalogStorage {
    /// The connections to the database.
    let pool: PostgresPool

    /// The change counter as last read, how many invalidations had happened before that read,
    /// and when the read began. Read by every credential check: a reader-writer lock, so that
    /// workers never queue behind each other to read it.
    private let knownCounter = ReadWriteLock<KnownCounter?>(nil)
    /// Moved by every invalidation of the known counter: a value read before a move is stale.
    private let invalidations = Atomic<UInt64>(0)
    private struct KnownCounter: Sendable {
        var counter: Int64
        var invalidations: UInt64
        var readAt: ContinuousClock.Instant
    }

    /// How long a counter read from the database is trusted: another process's write is seen
    /// at most this long after it commits, even when no notification of it arrives.
    static let counterLifetime: Duration = .seconds(1)

    /// Told after each write commits: to tell other processes that cached rows may be stale.
    let afterWrite = Mutex<(@Sendable () -> Void)?>(nil)

    /// The statement every write transaction ends with.
    private static let moveCounter = "UPDATE catalog.settings SET change_counter = change_counter + 1"

    /// Opens the catalog in the database `url` names, creating and migrating its schema as needed.
    /// - Throws: ``CloudStoreError`` when the database cannot be reached or migrated; its
    ///   message never holds the URL.
    convenience init(url: String) throws {
        try self.init(pool: PostgresPool(url: url))
    }

    /// Opens the catalog on `pool`'s database, creating and migrating its schema as needed.
    /// - Throws: ``CloudStoreError`` when the database cannot be reached or migrated.
    init(pool: PostgresPool) throws {
        self.pool = pool
        _ = try PostgresError.mapped {
            try pool.withConnection { connection in
                try PostgresCatalogMigrations.migrator.migrate(connection, schema: PostgresCatalogMigrations.schema)
            }
        }
    }

    // MARK: - Transactions

    /// Runs `body` on a connection of its own, outside a transaction: for single-statement reads,
    /// and writes that must not move the change counter.
    @discardableResult
    func read<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try PostgresError.mapped { try pool.withConnection(body) }
    }

    /// Runs `body` in a write transaction that also moves the change counter, so that caches of
    /// catalog rows in every process see that something changed; this process's cached counter
    /// is dropped at once. The audit entries of the change being made (``PendingAudit``) are
    /// written in it too, unless `body` answers that it changed nothing.
    @discardableResult
    func write<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let audit = PendingAudit.take()
        defer {
            invalidateCachedCounter()
            afterWrite.withLock { $0 }?()
        }
        return try PostgresError.mapped {
            try pool.withConnection { connection in
                try connection.begin()
                do {
                    let result = try body(connection)
                    for note in PendingAudit.notes(audit, after: result) {
                        try Self.insertAuditEntry(note.entry, forgetBefore: note.forgetBefore, on: connection)
                    }
                    // The counter's row is one that every process's writes update: moved last and
                    // sent with COMMIT in one round trip, its lock is held for no more than the commit.
                    try connection.pipeline([(sql: Self.moveCounter, values: []), (sql: "COMMIT", values: [])]).ignoreAll()
                    return result
                } catch {
                    connection.rollback()
                    throw error
                }
            }
        }
    }

    // MARK: - Change counter

    /// The catalog's change counter, read from the database when this process wrote to the
    /// catalog since it was last read, or when the last read is a second old.
    func changeCounter() throws -> Int64 {
        // Both taken before the read: a write or a second that passes during it is seen at the next call.
        let seen = invalidations.load(ordering: .acquiring)
        let now = ContinuousClock.now
        if let known = knownCounter.read({ $0 }), known.invalidations == seen, now < known.readAt + Self.counterLifetime {
            return known.counter
        }
        let counter = try storedChangeCounter()
        knownCounter.write { known in
            // A slower read that began earlier never replaces a later one.
            if let known, known.invalidations > seen || (known.invalidations == seen && known.readAt > now) { return }
            known = KnownCounter(counter: counter, invalidations: seen, readAt: now)
        }
        return counter
    }

    /// The change counter as the database holds it now.
    func storedChangeCounter() throws -> Int64 {
        try read { connection in
            try connection.execute("SELECT change_counter FROM catalog.settings").scalarInteger() ?? 0
        }
    }

    /// Forgets the cached change counter, so that the next ``changeCounter()`` reads it: after a
    /// write, or when another process says it changed the catalog.
    func invalidateCachedCounter() {
        invalidations.add(1, ordering: .releasing)
    }

    // MARK: - Settings

    /// The server's secret, made when the catalog was, used to sign tokens and markers.
    func secret() throws -> [UInt8] {
        let hex = try read { connection in
            try connection.execute("SELECT secret FROM catalog.settings").first { $0.text(0) }
        }
        guard let hex, let bytes = SecureToken.bytes(fromHex: hex) else {
            throw CloudStoreError.internalError("The catalog has no server secret")
        }
        return bytes
    }

    /// Replaces the server's secret with a new random one.
    func rotateSecret() throws {
        try write { connection in
            try connection.execute("UPDATE catalog.settings SET secret = $1", [.text(SecureToken.hex(bytes: 32))])
        }
    }

    /// The store's incarnation, which change tokens carry: a new one makes every older token expire.
    func incarnation() throws -> String {
        try read { connection in
            try connection.execute("SELECT incarnation FROM catalog.settings").first { $0.text(0) } ?? ""
        }
    }

    /// The identity of the PostgreSQL cluster the incarnation was issued on; empty until one is recorded.
    func clusterIdentity() throws -> String {
        try read { connection in
            try connection.execute("SELECT cluster_identity FROM catalog.settings").first { $0.text(0) } ?? ""
        }
    }

    /// Records `identity` as the cluster's, unless it is recorded already, and then, with
    /// `bumpIncarnation`, gives the store a new incarnation in the same transaction: of several
    /// processes that find the cluster changed, only the first bumps it.
    /// - Parameters:
    ///   - identity: The cluster's identity now.
    ///   - bumpIncarnation: Whether older change tokens must expire (a cluster that may have lost
    ///     commits), or continue (a planned, lossless move).
    /// - Returns: Whether this call changed the recorded identity.
    @discardableResult
    func setClusterIdentity(_ identity: String, bumpIncarnation: Bool) throws -> Bool {
        try write { connection in
            // One statement: a second process's UPDATE waits for the first's row lock, then
            // re-checks the condition against the row the first committed, and changes nothing.
            try connection.execute(
                """
                UPDATE catalog.settings SET cluster_identity = $1,
                    incarnation = CASE WHEN $2::boolean THEN $3 ELSE incarnation END
                WHERE cluster_identity <> $1
                """,
                [.text(identity), .bool(bumpIncarnation), .text(SecureToken.hex(bytes: 8))]
            ).affectedRows > 0
        }
    }

    /// The identity of the database the store is on now: the cluster's system identifier and
    /// timeline, so that a restore into another cluster or a promoted standby shows as a change,
    /// and the object identifier of the catalog's settings table, which every restore of a dump
    /// makes anew (into a new database of the same cluster, or over the same one); `nil` when the
    /// role may not read the cluster's (it needs `pg_monitor`).
    func currentClusterIdentity() throws -> String? {
        do {
            return try read { connection in
                try connection.execute(Self.clusterIdentityQuery).first { $0.text(0) }
            }
        } catch CloudStoreError.internalError {
            return nil
        }
    }

    /// The statement reading the identity of the database the store is in: the cluster's system
    /// identifier and timeline, and the settings table's identifier, which a restore recreates.
    static let clusterIdentityQuery = """
        SELECT (SELECT system_identifier FROM pg_control_system())::text || '/'
            || (SELECT timeline_id FROM pg_control_checkpoint())::text || '/'
            || 'catalog.settings'::regclass::oid::text
        """

    /// Compares the database with the one the incarnation was issued on, before serving: on
    /// another cluster, another timeline of it, or a restored copy, commits a client was told of
    /// may be gone, and their sequences would be handed out again; so the incarnation moves and
    /// every older change token expires. The first use records the identity. Returns whether the
    /// incarnation moved.
    ///
    /// An identity recorded before it held the settings table's identifier (two parts, not three)
    /// is completed without a bump when cluster and timeline still match: that record cannot tell
    /// whether a restore happened since, and expiring every token on upgrade would cost each
    /// device a full resync for nothing it can know of.
    @discardableResult
    func checkClusterIdentity() throws -> Bool {
        guard let identity = try currentClusterIdentity() else { return false }
        let recorded = try clusterIdentity()
        guard recorded != identity else { return false }
        let bump = !recorded.isEmpty && !Self.isEarlierForm(recorded, of: identity)
        return try setClusterIdentity(identity, bumpIncarnation: bump) && bump
    }

    /// Whether `recorded` is `identity` as recorded before identities held a third part.
    static func isEarlierForm(_ recorded: String, of identity: String) -> Bool {
        let parts = identity.split(separator: "/", omittingEmptySubsequences: false)
        return recorded.split(separator: "/", omittingEmptySubsequences: false).count == 2 && parts.count == 3
            && recorded == parts.prefix(2).joined(separator: "/")
    }

    // MARK: - Containers

    /// Every container, by identifier.
    func containers() throws -> [ContainerInfo] {
        try read { connection in
            try connection.execute("SELECT container, created FROM catalog.containers ORDER BY container").map { row in
                ContainerInfo(identifier: try ContainerIdentifier(row.text(0)), created: row.integer(1))
            }
        }
    }

    /// The container with `identifier`, if it exists.
    func container(_ identifier: ContainerIdentifier) throws -> ContainerInfo? {
        try read { connection in
            try connection.execute("SELECT created FROM catalog.containers WHERE container = $1", [.text(identifier.rawValue)]).first {
                ContainerInfo(identifier: identifier, created: $0.integer(0))
            }
        }
    }

    /// Registers a container. - Throws: ``CloudStoreError/exists(_:)`` when it is already registered.
    func createContainer(_ identifier: ContainerIdentifier, created: Int64) throws -> ContainerInfo {
        try write { connection in
            // Not a check first: two processes creating the same container must not both pass it.
            let inserted = try connection.execute(
                "INSERT INTO catalog.containers(container, created) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                [.text(identifier.rawValue), .integer(created)]
            ).affectedRows
            guard inserted > 0 else { throw CloudStoreError.exists("Container \(identifier) already exists") }
            return ContainerInfo(identifier: identifier, created: created)
        }
    }
}

extension [PostgresResult] {
    /// Drops results nobody reads.
    fileprivate func ignoreAll() {}
}
