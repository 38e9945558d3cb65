extension CloudStore {
    // MARK: - Readiness

    /// Why the store cannot serve requests now, or `nil` when it can: its database answers, has
    /// the schema this program expects and, on PostgreSQL, this process hears the others. The
    /// reason names no host, path or password.
    public func readinessProblem() -> String? {
        do {
            _ = try catalog.containers()
        } catch {
            return "the database does not answer"
        }
        guard let postgres else { return nil }
        do {
            let version = try postgres.withConnection { try PostgresMigrator.version(of: PostgresCatalogMigrations.schema, on: $0) }
            if version != PostgresCatalogMigrations.migrator.migrations.count {
                return "the database's schema is at version \(version), this program's at \(PostgresCatalogMigrations.migrator.migrations.count): run `cumulus migrate`"
            }
        } catch {
            return "the database does not answer"
        }
        return hearsOtherProcesses ? nil : "not yet listening for the other processes' changes"
    }
}
