extension PostgresCatalogStore {
    /// The limits an operator set for an environment; `nil` when none were set.
    func limits(of container: ContainerIdentifier, _ environment: Environment) throws -> EnvironmentLimits? {
        try read { connection in
            try connection.execute(
                "SELECT \(CatalogRows.limitColumns) FROM catalog.environment_limits WHERE container = $1 AND environment = $2",
                [.text(container.rawValue), .text(environment.rawValue)]
            ).first(CatalogRows.limits)
        }
    }

    /// Sets an environment's limits, replacing those set before.
    func setLimits(_ limits: EnvironmentLimits, of container: ContainerIdentifier, _ environment: Environment) throws {
        try write { connection in
            try connection.execute(
                """
                INSERT INTO catalog.environment_limits(container, environment, requests_per_second, burst, storage_bytes,
                                                       transfer_bytes_per_month) VALUES ($1, $2, $3, $4, $5, $6)
                ON CONFLICT (container, environment) DO UPDATE SET
                    requests_per_second = excluded.requests_per_second, burst = excluded.burst,
                    storage_bytes = excluded.storage_bytes, transfer_bytes_per_month = excluded.transfer_bytes_per_month
                """,
                [
                    .text(container.rawValue), .text(environment.rawValue), .double(limits.requestsPerSecond),
                    .integer(limits.burst), .integer(limits.storageBytes), .integer(limits.transferBytesPerMonth),
                ])
        }
    }
}
