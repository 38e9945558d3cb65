import ArgumentParser
import CloudStore

/// `cumulus migrate`: brings the store's databases to this version's schema and exits; on
/// PostgreSQL, what a deployment runs once before starting its servers.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Bring the databases to this version's schema, then exit.",
        discussion: """
            Servers migrate when they start as well; run this first where several servers share one \
            PostgreSQL database, so that none of them starts on a schema it does not know. Each migration \
            runs in one transaction under an advisory lock: processes starting together run it once.
            """)

    @OptionGroup var data: DataDirectoryOptions

    func run() throws {
        let store = try data.openStore()
        let environments = try store.migrateEverything()
        print("Migrated the catalog, the request log and \(environments) environments (\(store.configuration.database)).")
    }
}
