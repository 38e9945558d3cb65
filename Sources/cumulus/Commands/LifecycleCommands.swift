import ArgumentParser
import CloudKitWire

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
        let difference = try client.json(.get, ManagementPath("containers", container, "deployment"))
        let changes = (difference["changes"]?.arrayValue ?? []).compactMap { $0["description"]?.stringValue }
        let refusals = (difference["refusals"]?.arrayValue ?? []).compactMap { $0["reason"]?.stringValue }
        if changes.isEmpty, refusals.isEmpty {
            print("Production's schema is already development's: nothing to deploy.")
            return
        }
        for change in changes { print("  \(change)") }
        for refusal in refusals { print("  refused: \(refusal)") }
        guard refusals.isEmpty else {
            throw ManagementFailure(description: "The schema cannot be deployed: \(refusals.count) change\(refusals.count == 1 ? "" : "s") would remove or change what production has.")
        }
        if dryRun {
            print("Dry run: \(changes.count) change\(changes.count == 1 ? "" : "s") to deploy; nothing was changed.")
            return
        }
        let deployment = try client.json(.post, ManagementPath("containers", container, "deployment"))
        print("Deployed \(deployment["changes"]?.arrayValue?.count ?? 0) changes to production of \(container).")
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
        let answer = try management.client().json(
            .post, ManagementPath("containers", container, "reset"), body: ["confirm": .string(container)])
        let deleted = answer["deleted"]
        func count(_ key: String) -> Int64 { deleted?[key]?.int64Value(acceptingNumericString: false) ?? 0 }
        print("Reset development of \(container): \(count("records")) records and \(count("zones")) zones deleted, "
              + "\(count("sessions")) sessions ended; \(count("productionRecordTypes")) record types, as in production.")
    }
}
