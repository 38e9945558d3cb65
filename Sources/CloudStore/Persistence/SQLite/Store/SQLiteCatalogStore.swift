import Synchronization

/// The catalog file, `cumulus.sqlite`: containers, credentials and server-wide settings.
final class SQLiteCatalogStore: CatalogStorage {
    let database: SQLiteDatabase
    /// Moved after every catalog write, by every process that opens the catalog.
    private let changeSignal: SQLiteSharedChangeSignal?
    /// The change counter as last read, with the mark of the signal taken before it.
    /// Read by every credential check, written when the catalog changed: a reader-writer lock,
    /// so that workers never queue behind each other to read it.
    private let knownCounter = ReadWriteLock<KnownCounter?>(nil)
    private struct KnownCounter {
        var counter: Int64
        var mark: SQLiteSharedChangeSignal.Mark
    }

    /// Opens (creating and migrating as needed) the catalog at `path`.
    init(path: String, synchronous: SynchronousMode) throws {
        database = try SQLiteDatabase(path: path, synchronous: synchronous, migrator: SQLiteCatalogMigrations.migrator)
        changeSignal = SQLiteSharedChangeSignal(path: path + "-changes")
    }

    func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T { try database.read(body) }

    /// Runs `body` in a write transaction that also moves the change counter, so that caches of
    /// catalog rows in every process see that something changed; after the commit the change
    /// is signalled to every process.
    /// The audit entries of the change being made (``PendingAudit``) are written in it too,
    /// unless `body` answers that it changed nothing.
    func write<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        let audit = PendingAudit.take()
        let result = try database.write { connection in
            let result = try body(connection)
            for note in PendingAudit.notes(audit, after: result) {
                try Self.insertAuditEntry(note.entry, forgetBefore: note.forgetBefore, on: connection)
            }
            try connection.statement("UPDATE settings SET value = CAST(value AS INTEGER) + 1 WHERE key = 'change_counter'").execute()
            return result
        }
        changeSignal?.signal()
        return result
    }

    /// The catalog's change counter, read from the file only when a change was signalled since
    /// it was last read, or a second has passed: credential checks ask for it on every request.
    func changeCounter() throws -> Int64 {
        guard let changeSignal else { return try storedChangeCounter() }
        if let known = knownCounter.read({ $0 }), changeSignal.isCurrent(known.mark) { return known.counter }
        // Marked before the read: a change signalled after it is seen at the next call, never lost.
        let mark = changeSignal.mark()
        let counter = try storedChangeCounter()
        knownCounter.write { $0 = KnownCounter(counter: counter, mark: mark) }
        return counter
    }

    func secret() throws -> [UInt8] {
        let hex = try read { connection in
            try connection.statement("SELECT value FROM settings WHERE key = 'secret'").firstRow { $0.text(0) }
        }
        guard let hex, let bytes = SecureToken.bytes(fromHex: hex) else {
            throw CloudStoreError.internalError("The catalog has no server secret")
        }
        return bytes
    }

    func rotateSecret() throws {
        try write { connection in
            try connection.statement("UPDATE settings SET value = lower(hex(randomblob(32))) WHERE key = 'secret'").execute()
        }
    }

    func containers() throws -> [ContainerInfo] {
        try read { connection in
            try connection.statement("SELECT container, created FROM containers ORDER BY container").rows { row in
                ContainerInfo(identifier: try ContainerIdentifier(row.text(0)), created: row.integer(1))
            }
        }
    }

    func container(_ identifier: ContainerIdentifier) throws -> ContainerInfo? {
        try read { connection in
            try connection.statement("SELECT created FROM containers WHERE container = ?").firstRow([.text(identifier.rawValue)]) {
                ContainerInfo(identifier: identifier, created: $0.integer(0))
            }
        }
    }

    func createContainer(_ identifier: ContainerIdentifier, created: Int64) throws -> ContainerInfo {
        try write { connection in
            let exists =
                try connection.statement("SELECT 1 FROM containers WHERE container = ?")
                .scalarInteger([.text(identifier.rawValue)]) != nil
            guard !exists else { throw CloudStoreError.exists("Container \(identifier) already exists") }
            try connection.statement("INSERT INTO containers(container, created) VALUES (?, ?)")
                .execute([.text(identifier.rawValue), .integer(created)])
            return ContainerInfo(identifier: identifier, created: created)
        }
    }
}
