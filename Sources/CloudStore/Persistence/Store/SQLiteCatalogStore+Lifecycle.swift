extension SQLiteCatalogStore: LifecycleStorage {
    func insertDeployment(_ deployment: SchemaDeployment) throws {
        try write { connection in
            try connection.statement(
                "INSERT INTO schema_deployments(container, deployed, deployed_by, changes, schema) VALUES (?, ?, ?, ?, ?)"
            ).execute([
                .text(deployment.container.rawValue), .integer(deployment.deployed), .text(deployment.deployedBy),
                .text(deployment.changes.joined(separator: "\n")), .text(deployment.schema),
            ])
        }
    }

    func deployments(in container: ContainerIdentifier, limit: Int) throws -> [SchemaDeployment] {
        try read { connection in
            try connection.statement(
                "SELECT deployed, deployed_by, changes, schema FROM schema_deployments WHERE container = ? ORDER BY deployed DESC, id DESC LIMIT ?"
            ).rows([.text(container.rawValue), .integer(Int64(limit))]) { row in
                SchemaDeployment(
                    container: container, deployed: row.integer(0), deployedBy: row.text(1),
                    changes: row.text(2).split(separator: "\n").map(String.init), schema: row.text(3))
            }
        }
    }
}
