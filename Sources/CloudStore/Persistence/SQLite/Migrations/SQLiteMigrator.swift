/// Applies numbered schema migrations to one of our own database files, tracked in
/// `PRAGMA user_version`. Migrations only ever get appended: a file at version N has run
/// migrations 1…N exactly once each.
struct SQLiteMigrator: Sendable {
    /// One migration: SQL statements, or steps that need values read from the file first.
    enum Migration: ExpressibleByStringLiteral, Sendable {
        /// Statements run as one script.
        case sql(String)
        /// Steps run on the connection, inside the migrations' transaction.
        case steps(@Sendable (SQLiteConnection) throws -> Void)

        /// A migration of SQL statements, as most are written.
        init(stringLiteral sql: String) { self = .sql(sql) }

        /// Runs the migration on `connection`, inside the caller's transaction.
        func run(on connection: SQLiteConnection) throws {
            switch self {
            case .sql(let sql): try connection.execute(sql)
            case .steps(let steps): try steps(connection)
            }
        }
    }

    /// The migrations in order; migration `i` (0-based) brings the file to version `i + 1`.
    var migrations: [Migration]

    /// Runs the migrations the file has not run yet, all in one transaction.
    /// - Throws: when the file is newer than this program knows.
    func migrate(_ connection: SQLiteConnection) throws {
        try connection.transaction {
            let current = Int(try connection.statement("PRAGMA user_version").scalarInteger() ?? 0)
            guard current <= migrations.count else {
                throw CloudStoreError.internalError(
                    "\(connection.path) has schema version \(current), newer than this program's \(migrations.count)")
            }
            for version in current..<migrations.count {
                try migrations[version].run(on: connection)
            }
            if current < migrations.count {
                try connection.execute("PRAGMA user_version = \(migrations.count)")
            }
        }
    }
}
