import Foundation
import TestSupport
import Testing

@testable import CloudStore

/// Operators' roles and containers as each catalog backend keeps them, and the migration that
/// makes the operators of an older catalog owners of every container.
@Suite(.enabled(if: TestBackend.isDefaultRun, "Runs against both backends itself, once, in the default run"))
struct OperatorRoleStorageTests {
    static let a = try! ContainerIdentifier("iCloud.com.example.A")
    static let b = try! ContainerIdentifier("iCloud.com.example.B")

    @Test(arguments: CatalogBackend.allCases)
    func aRoleAndContainersAreKeptAndChanged(_ backend: CatalogBackend) throws {
        let catalog = try OpenCatalog(backend)
        let store = catalog.store
        try store.insertOperator(OperatorAccount(name: "Vera", created: 1, role: .viewer, containers: [Self.a, Self.b]), passwordHash: "v")
        try store.insertOperator(OperatorAccount(name: "root", created: 2), passwordHash: "r")
        #expect(
            try store.operators() == [
                OperatorAccount(name: "root", created: 2),
                OperatorAccount(name: "Vera", created: 1, role: .viewer, containers: [Self.a, Self.b]),
            ])
        let changed = try catalog.expectMoves("a new role") {
            try store.setOperatorAccess(role: .developer, containers: [Self.b], of: "vERA")
        }
        #expect(changed)
        #expect(
            try store.operatorAccount(named: "vera")?.account
                == OperatorAccount(name: "Vera", created: 1, role: .developer, containers: [Self.b]))
        #expect(try store.operatorAccount(named: "vera")?.passwordHash == "v")
        #expect(try store.setOperatorAccess(role: .owner, containers: [], of: "vera"))
        #expect(try store.operatorAccount(named: "vera")?.account.access == .everything)
        #expect(try store.setOperatorAccess(role: .viewer, containers: [], of: "nobody") == false)
    }

    @Test func theOperatorsOfAnOlderSQLiteCatalogBecomeOwners() throws {
        let directory = try TemporaryDirectory(prefix: "operator-roles")
        let path = directory.path + "/cumulus.sqlite"
        do {
            let before = SQLiteMigrator(migrations: Array(SQLiteCatalogMigrations.migrator.migrations.dropLast()))
            let database = try SQLiteDatabase(path: path, synchronous: .normal, migrator: before)
            try database.write { connection in
                try connection.statement("INSERT INTO operators(name, password, created) VALUES ('old', 'hash', 5)").execute([])
            }
        }
        let store = try SQLiteCatalogStore(path: path, synchronous: .normal)
        #expect(try store.operators() == [OperatorAccount(name: "old", created: 5, role: .owner, containers: [])])
    }

    @Test func theOperatorsOfAnOlderPostgreSQLCatalogBecomeOwners() throws {
        let database = try TestPostgres.makeDatabase()
        do {
            let connection = try PostgresConnection(url: database.url)
            let before = PostgresMigrator(migrations: Array(PostgresCatalogMigrations.migrator.migrations.dropLast()))
            try before.migrate(connection, schema: PostgresCatalogMigrations.schema)
            try connection.execute("INSERT INTO catalog.operators(name, password, created) VALUES ('old', 'hash', 5)")
        }
        let store = try PostgresCatalogStore(url: database.url)
        #expect(try store.operators() == [OperatorAccount(name: "old", created: 5, role: .owner, containers: [])])
    }
}
