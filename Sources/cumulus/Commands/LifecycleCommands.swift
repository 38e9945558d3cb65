import ArgumentParser
import CloudKitWire
import Console

/// `cumulus deploy --container ID [--dry-run]`: development's schema to production, on the data
/// directory or a remote server (`--server`).
struct DeployCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deploy",
        abstract: "Deploy development's schema to production: prints what changes, then applies it.",
        discussion: """
            Additive only: record types, fields, indexes and roles are added and grants changed; removing or \
            changing the type of anything production has is refused with its reason. Records are never copied.
            """)

    @OptionGroup var management: ManagementOptions

    @Option(help: "The container identifier.")
    var container: String

    @Flag(name: .customLong("dry-run"), help: "Print what would change, and change nothing.")
    var dryRun = false

    func run() throws {
        let client = try management.client()
        let difference = try client.result(SchemaDifferenceView.self, .get, ManagementPath("containers", container, "deployment"))
        let changes = difference.changes.map(\.description)
        let refusals = difference.refusals.map(\.reason)
        if changes.isEmpty, refusals.isEmpty {
            print("Production's schema is already development's: nothing to deploy.")
            return
        }
        for change in changes { print("  \(change)") }
        for refusal in refusals { print("  refused: \(refusal)") }
        guard refusals.isEmpty else {
            throw ManagementFailure(
                description:
                    "The schema cannot be deployed: \(refusals.count) change\(refusals.count == 1 ? "" : "s") would remove or change what production has."
            )
        }
        if dryRun {
            print("Dry run: \(changes.count) change\(changes.count == 1 ? "" : "s") to deploy; nothing was changed.")
            return
        }
        let deployment = try client.result(SchemaDeploymentView.self, .post, ManagementPath("containers", container, "deployment"))
        print("Deployed \(deployment.changes.count) changes to production of \(container).")
    }
}

/// `cumulus reset --container ID`: development back to production's schema, with no data.
struct ResetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Reset a container's development environment: every record and zone deleted, the schema returned to production's.",
        discussion: "Production is untouched. Change tokens from before the reset are refused as expired.")

    @OptionGroup var management: ManagementOptions

    @Option(help: "The container identifier.")
    var container: String

    func run() throws {
        let deleted = try management.client().result(
            ResetOutcome.self, .post, ManagementPath("containers", container, "reset"), body: ["confirm": .string(container)]
        ).deleted
        print(
            "Reset development of \(container): \(deleted.records) records and \(deleted.zones) zones deleted, "
                + "\(deleted.sessions) sessions ended; \(deleted.productionRecordTypes) record types, as in production.")
    }
}
