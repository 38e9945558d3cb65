extension CloudStore {
    // MARK: - Tombstone retention

    /// Forgets, in every container's environments, the tombstones of records and zones deleted
    /// longer ago than ``CloudStoreConfiguration/tombstoneRetention``; tokens from before them
    /// are refused from then on with CHANGE_TOKEN_EXPIRED. The server runs it periodically.
    /// - Returns: how many tombstones went.
    @discardableResult
    public func forgetExpiredTombstones() throws -> Int {
        let before = now - configuration.tombstoneRetention
        var forgotten = 0
        for container in try containers() {
            for environment in Environment.allCases {
                forgotten += try self.environment(container.identifier, environment).write { try $0.forgetTombstones(before: before) }
            }
        }
        return forgotten
    }
}
