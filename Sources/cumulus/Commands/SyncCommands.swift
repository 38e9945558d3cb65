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

/// `cumulus changes --container ID --zone Z [--after N | --since MS] [--sync-token T]`: a zone's
/// change log, tombstones included, or what a client holding a token receives next.
struct ChangesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes", abstract: "Inspect a zone's change feed: its log, or the next page for a sync token.",
        discussion: """
            Without --sync-token, prints the zone's change log after --after (a change number) or from --since \
            (milliseconds since 1970) on, tombstones included, then the zone's current token. With --sync-token \
            (empty for a first fetch), prints what a client holding it receives next, or the error it would get.
            """)

    @OptionGroup var management: ManagementOptions

    @OptionGroup var target: ContainerOptions

    @Option(help: "public, private or shared.")
    var database = "public"

    @Option(help: "The user whose private or shared database it is.")
    var user: String?

    @Option(help: "The zone.")
    var zone = "_defaultZone"

    @Option(help: "Changes after this change number.")
    var after: Int64?

    @Option(help: "Changes from this time on, in milliseconds since 1970.")
    var since: Int64?

    @Option(name: .customLong("sync-token"), help: "Show what a client holding this token receives next.")
    var syncToken: String?

    func run() throws {
        let client = try management.client()
        let base = ["containers", target.container, target.environment.rawValue, database, "zones", zone, "changes"]
        if let syncToken {
            let next = try client.result(
                NextChangesView.self, .get, ManagementPath(segments: base + ["next"], query: [("user", user), ("syncToken", syncToken)]))
            for change in next.records {
                var deleted = false
                if case .deleted = change { deleted = true }
                print((deleted ? "deleted\t" : "record\t") + (change.recordName ?? ""))
            }
            print("syncToken\t\(next.syncToken)\nmoreComing\t\(next.moreComing)")
            return
        }
        let log = try client.result(
            ChangeLogView.self, .get,
            ManagementPath(
                segments: base,
                query: [
                    ("user", user), ("after", after.map(String.init)), ("since", since.map(String.init)),
                ]))
        for entry in log.entries {
            print([String(entry.sequence), entry.kind, entry.recordName, entry.recordType, String(entry.time)].joined(separator: "\t"))
        }
        print("syncToken\t\(log.syncToken)")
        if log.horizon > 0 { print("expired below\t\(log.horizon)") }
    }
}

/// `cumulus notifications`: the queues of notifications waiting for push tokens.
struct NotificationsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications", abstract: "List the notification queues of a container's environment, per push token, as JSON.")

    @OptionGroup var management: ManagementOptions

    @OptionGroup var target: ContainerOptions

    func run() throws {
        printJSON(try management.client().json(.get, target.path(["notifications"])))
    }
}
