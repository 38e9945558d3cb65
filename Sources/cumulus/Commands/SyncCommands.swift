import ArgumentParser
import CloudKitWire
import Console

/// `cumulus subscriptions list|delete`: the subscriptions of a container's environment.
struct SubscriptionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscriptions", abstract: "List or delete the subscriptions of a container's environment.",
        subcommands: [List.self, Delete.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List every subscription, with its subscriber and database.")

        @OptionGroup var management: ManagementOptions

        @OptionGroup var target: ContainerOptions

        func run() throws {
            let subscriptions = try management.client().result(
                SubscriptionsView.self, .get, ManagementPath("containers", target.container, target.environment.rawValue, "subscriptions")
            ).subscriptions
            if subscriptions.isEmpty { print("No subscriptions in \(target.environment) of \(target.container).") }
            for entry in subscriptions {
                let database = entry.database
                let what: String =
                    switch entry.subscriptionType {
                    case "query": "query " + (entry.recordType ?? "") + " on " + entry.firesOn.joined(separator: ",")
                    case "zone": "zone " + (entry.zoneName ?? "")
                    default: "database"
                    }
                print(
                    [
                        entry.userRecordName, database == "public" ? database : "\(database) of \(entry.owner)", entry.subscriptionID, what,
                    ].joined(separator: "\t"))
            }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a user's subscription.")

        @OptionGroup var management: ManagementOptions

        @OptionGroup var target: ContainerOptions

        @Option(help: "public, private or shared.")
        var database = "public"

        @Option(help: "The user whose private or shared database it is.")
        var owner: String?

        @Option(help: "The subscriber: sign-in name or user record name.")
        var user: String

        @Argument(help: "The subscription's identifier.")
        var subscriptionID: String

        func run() throws {
            let path = ManagementPath(
                segments: ["containers", target.container, target.environment.rawValue, database, "subscriptions", user, subscriptionID],
                query: [("owner", owner)])
            _ = try management.client().result(SubscriptionDeletion.self, .delete, path)
            print("Deleted subscription \(subscriptionID) of \(user).")
        }
    }
}

/// `cumulus push-tokens list|revoke`: the push tokens users hold in a container's environment.
struct PushTokensCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push-tokens", abstract: "List or revoke the push tokens users hold in a container's environment.",
        discussion: """
            A push token is what a device's web courier polls with. Each ends with the session that made it, when its user \
            signs out everywhere or gets a new password, and after going unused; revoke one to end it now.
            """,
        subcommands: [List.self, Revoke.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the push tokens users hold: id, user, first characters, created and last used (ms since 1970).")

        @OptionGroup var management: ManagementOptions

        @OptionGroup var target: ContainerOptions

        @Option(help: "Only this user's tokens: sign-in name or user record name.")
        var user: String?

        func run() throws {
            let path = ManagementPath(
                segments: ["containers", target.container, target.environment.rawValue, "push-tokens"], query: [("user", user)])
            let tokens = try management.client().result(PushTokensView.self, .get, path).pushTokens
            if tokens.isEmpty { print("No push tokens held in \(target.environment) of \(target.container).") }
            for token in tokens {
                let holder: String = token.userName ?? token.userRecordName ?? ""
                let columns: [String] = [token.id, holder, token.token, String(token.created), String(token.lastUsed)]
                print(columns.joined(separator: "\t"))
            }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a push token: its courier URL answers 404 from now on.")

        @OptionGroup var management: ManagementOptions

        @OptionGroup var target: ContainerOptions

        @Argument(help: "The token's id, as `push-tokens list` prints it.")
        var id: String

        func run() throws {
            _ = try management.client().result(
                PushTokenRevocation.self, .delete,
                ManagementPath("containers", target.container, target.environment.rawValue, "push-tokens", id))
            print("Revoked push token \(id).")
        }
    }
}

/// `cumulus changes --container ID --zone Z [--owner U] [--after N | --before N | --since MS]
/// [--record-name P] [--sync-token T [--reader R]]`: a page of a zone's change log, newest first, tombstones
/// included, or what a client holding a token receives next.
struct ChangesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes", abstract: "Inspect a zone's change feed: its log, or the next page for a sync token.",
        discussion: """
            Without --sync-token, prints a page of the zone's change log, newest first: the newest changes (before \
            --before), or the oldest after --after (a change number) or from --since (milliseconds since 1970) on, \
            of records whose name starts with --record-name; tombstones included, each with who made it and the \
            API token or server key it came through; then the zone's current token. With --sync-token (empty for a \
            first fetch), prints where the token stands and what a client of --reader (_world, or a user) holding it \
            receives next, or the error it would get. In the shared database, --owner names the zone's owner. In \
            production a user's database shows metadata only: record names are left out.
            """)

    @OptionGroup var management: ManagementOptions

    @OptionGroup var target: ContainerOptions

    @Option(help: "public, private or shared.")
    var database = "public"

    @Option(help: "The user whose private or shared database it is.")
    var user: String?

    @Option(help: "The zone.")
    var zone = "_defaultZone"

    @Option(help: "In the shared database, the owner of the zone (a user's name or record name).")
    var owner: String?

    @Option(help: "Changes after this change number.")
    var after: Int64?

    @Option(help: "Changes from this time on, in milliseconds since 1970.")
    var since: Int64?

    @Option(help: "Changes before this change number.")
    var before: Int64?

    @Option(name: .customLong("record-name"), help: "Changes of records whose name is or starts with this.")
    var recordName: String?

    @Option(help: "Whose client the next page is for: _world, or a user (by default the world in the public database, else its user).")
    var reader: String?

    @Option(name: .customLong("sync-token"), help: "Show what a client holding this token receives next.")
    var syncToken: String?

    func run() throws {
        let client = try management.client()
        let base = ["containers", target.container, target.environment.rawValue, database, "zones", zone, "changes"]
        if let syncToken {
            let next = try client.result(
                NextChangesView.self, .get,
                ManagementPath(
                    segments: base + ["next"], query: [("user", user), ("owner", owner), ("syncToken", syncToken), ("reader", reader)]))
            for change in next.records {
                var deleted = false
                if case .deleted = change { deleted = true }
                print((deleted ? "deleted\t" : "record\t") + (change.recordName.flatMap { $0.isEmpty ? nil : $0 } ?? "(hidden)"))
            }
            print("syncToken\t\(next.syncToken)\nmoreComing\t\(next.moreComing)")
            // After the lines scripts already read: who the page was for and where the held token stood.
            print("reader\t\(next.reader)")
            if let held = next.heldToken {
                print("held\tchange \(held.sequence) of zone \(held.zoneName ?? zone)" + (held.time.map { " made at \($0)" } ?? ""))
            }
            return
        }
        let log = try client.result(
            ChangeLogView.self, .get,
            ManagementPath(
                segments: base,
                query: [
                    ("user", user), ("owner", owner), ("after", after.map(String.init)), ("before", before.map(String.init)),
                    ("since", since.map(String.init)), ("recordName", recordName),
                ]))
        for entry in log.entries {
            let changedBy = entry.modifiedByName ?? entry.modifiedBy ?? "-"
            let name = entry.recordName.isEmpty ? "(hidden)" : entry.recordName
            print(
                [String(entry.sequence), entry.kind, name, entry.recordType, String(entry.time), changedBy, entry.via ?? "-"].joined(
                    separator: "\t"))
        }
        print("syncToken\t\(log.syncToken)")
        if log.horizon > 0 { print("expired below\t\(log.horizon)") }
    }
}
