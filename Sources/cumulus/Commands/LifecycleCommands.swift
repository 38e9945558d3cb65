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

    @Flag(
        name: .customLong("only-refused"),
        help: "Deploy only what production refused calls for in the last day (the schema guard), not all of development's schema.")
    var onlyRefused = false

    func run() throws {
        let client = try management.client()
        let guarded = try client.result(SchemaGuardView.self, .get, ManagementPath("containers", container, "schema-guard"))
        let filling = onlyRefused ? guarded.findings.map(\.gap) : nil
        if onlyRefused, filling?.isEmpty != false {
            print("Production refused no call in the last day for want of what development has: nothing to deploy.")
            return
        }
        let difference = try client.result(
            SchemaDifferenceView.self, .get,
            ManagementPath(
                segments: ["containers", container, "deployment"], query: filling.map { [("filling", $0.joined(separator: ","))] } ?? []))
        let changes = difference.changes.map(\.description)
        let refusals = difference.refusals.map(\.reason)
        if changes.isEmpty, refusals.isEmpty {
            print("Production's schema is already development's: nothing to deploy.")
            return
        }
        for change in changes {
            // The production calls refused in the last day that this change would have let through.
            let cured = guarded.findings.filter { $0.changes.contains(change) }
            let count = cured.reduce(0) { $0 + $1.refusals }
            let latest = cured.flatMap(\.latestRequestIDs).prefix(3).joined(separator: ", ")
            print(
                "  \(change)"
                    + (count > 0
                        ? " — would have let through \(count) refused production call\(count == 1 ? "" : "s") (latest: \(latest))" : ""))
        }
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
        let deployment = try client.result(
            SchemaDeploymentView.self, .post, ManagementPath("containers", container, "deployment"),
            body: ["filling": .array((filling ?? []).map(JSONValue.string))])
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

    @Flag(name: .customLong("dry-run"), help: "Print what the reset would delete, as JSON, and change nothing.")
    var dryRun = false

    @Option(help: "Restore this seed (cumulus seeds save) instead of leaving development empty.")
    var seed: String?

    func run() throws {
        if dryRun {
            printJSON(try management.client().json(.get, ManagementPath("containers", container, "reset")))
            return
        }
        var body: JSONObject = ["confirm": .string(container)]
        if let seed { body["seed"] = .string(seed) }
        let outcome = try management.client().result(
            ResetOutcome.self, .post, ManagementPath("containers", container, "reset"), body: .object(body))
        let deleted = outcome.deleted
        print(
            "Reset development of \(container): \(deleted.records) records and \(deleted.zones) zones deleted, "
                + "\(deleted.sessions) sessions ended; \(deleted.productionRecordTypes) record types, as in production"
                + (outcome.seed.map { "; seed \($0) restored: \(outcome.restored ?? 0) records." } ?? "."))
    }
}

/// `cumulus deployments --container ID`: the schema deployments to production so far.
struct DeploymentsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deployments", abstract: "List a container's schema deployments to production, newest first, as JSON.")

    @OptionGroup var management: ManagementOptions

    @Option(help: "The container identifier.")
    var container: String

    func run() throws { printJSON(try management.client().json(.get, ManagementPath("containers", container, "deployments"))) }
}

/// `cumulus audit`: the operators' actions, as the console's Audit page lists them.
struct AuditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit", abstract: "List what operators did (the audit trail), newest first, as JSON.")

    @OptionGroup var management: ManagementOptions

    @Option(name: .customLong("operator"), help: "Only actions of this operator.")
    var operatorName: String?

    @Option(help: "Only actions on this container.")
    var container: String?

    @Option(help: "Only this action, such as schema.deploy or user.add.")
    var action: String?

    @Option(help: "The `next` of an earlier page, for the page after it.")
    var before: String?

    @Option(help: "At most this many entries. [default: 50]")
    var limit: Int?

    @Flag(help: "Only operators' reads of records in users' private and shared databases (the action record.read).")
    var reads = false

    @Flag(help: "Print every matching entry (up to 100,000) as JSON lines, instead of a page as JSON.")
    var export = false

    func run() throws {
        let action = reads ? "record.read" : self.action
        if export {
            let query = [("operator", operatorName), ("container", container), ("action", action)]
            print(try management.client().text(.get, ManagementPath(segments: ["audit", "export"], query: query)), terminator: "")
            return
        }
        let query = [
            ("operator", operatorName), ("container", container), ("action", action), ("before", before), ("limit", limit.map(String.init)),
        ]
        printJSON(try management.client().json(.get, ManagementPath(segments: ["audit"], query: query)))
    }
}

/// `cumulus sign-in-attacks`: the addresses and names sign-in throttling holds back.
struct SignInAttacksCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-in-attacks", abstract: "List the failed sign-ins throttling holds back, by address and by name, as JSON.")

    @OptionGroup var management: ManagementOptions

    func run() throws { printJSON(try management.client().json(.get, ManagementPath("sign-in-attacks"))) }
}
