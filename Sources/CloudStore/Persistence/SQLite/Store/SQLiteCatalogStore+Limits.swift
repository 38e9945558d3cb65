extension SQLiteCatalogStore {
    func limits(of container: ContainerIdentifier, _ environment: Environment) throws -> EnvironmentLimits? {
        try read { connection in
            try connection.statement(
                "SELECT \(CatalogRows.limitColumns) FROM environment_limits WHERE container = ? AND environment = ?"
            ).firstRow([.text(container.rawValue), .text(environment.rawValue)], CatalogRows.limits)
        }
    }

    func setLimits(_ limits: EnvironmentLimits, of container: ContainerIdentifier, _ environment: Environment) throws {
        try write { connection in
            try connection.statement(
                """
                INSERT OR REPLACE INTO environment_limits(container, environment, requests_per_second, burst, storage_bytes,
                                                          transfer_bytes_per_month) VALUES (?, ?, ?, ?, ?, ?)
                """
            ).execute([
                .text(container.rawValue), .text(environment.rawValue), .real(limits.requestsPerSecond), .integer(Int64(limits.burst)),
                limits.storageBytes.map(SQLiteValue.integer) ?? .null, limits.transferBytesPerMonth.map(SQLiteValue.integer) ?? .null,
            ])
        }
    }
}
