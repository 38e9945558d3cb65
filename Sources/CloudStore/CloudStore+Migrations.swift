extension CloudStore {
    // MARK: - Migrations

    /// Brings every database of the store to this program's schema: the catalog and request log
    /// were migrated when the store opened; this opens every container environment, migrating
    /// each. On PostgreSQL every migration runs in one transaction under an advisory lock, so
    /// processes starting together run each once. Returns how many environments there are.
    @discardableResult
    public func migrateEverything() throws -> Int {
        var count = 0
        for container in try containers() {
            for environment in Environment.allCases {
                _ = try self.environment(container.identifier, environment)
                count += 1
            }
        }
        return count
    }
}
