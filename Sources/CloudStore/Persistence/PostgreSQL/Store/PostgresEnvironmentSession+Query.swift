extension PostgresEnvironmentSession {
    func query(_ plan: QueryPlan) throws -> [QueryRow] {
        try PostgresRecordQuery.run(plan, catalog: catalog, on: connection, schema: schemaName)
    }
}
