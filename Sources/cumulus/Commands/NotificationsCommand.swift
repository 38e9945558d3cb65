import ArgumentParser
import CloudKitWire
import Console
import Foundation

/// `cumulus notifications [queues] --container ID [--environment E] [--push-token ID] [--limit N]`:
/// every subscription with when it last fired, and every push token users hold with its last
/// poll and the notifications waiting for it, each with the payload the web courier hands out;
/// `cumulus notifications trace`: what became of a record's latest change.
struct NotificationsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications", abstract: "Inspect subscriptions and notification queues, or trace a change's deliveries.",
        subcommands: [Queues.self, Trace.self], defaultSubcommand: Queues.self)
}

extension NotificationsCommand {
    /// `cumulus notifications queues` (the default of `cumulus notifications`).
    struct Queues: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "queues", abstract: "Inspect subscriptions and the notifications waiting for each push token.",
            discussion: """
                Prints each subscription (subscriber, database, id, what it watches, when it last fired, how many notifications \
                it queued), then each push token users hold (id, user, created, last poll of its device) with the notifications \
                waiting for it, oldest first: id, subscription, reason, created and the JSON the web courier hands out. Times \
                are ISO 8601 in UTC. In production, notifications of private and shared databases carry no record field values.
                """)

        @OptionGroup var management: ManagementOptions

        @OptionGroup var target: ContainerOptions

        @Option(name: .customLong("push-token"), help: "Only the push token with this id, as `push-tokens list` prints it.")
        var pushToken: String?

        @Option(help: "The most notifications listed per push token.")
        var limit: Int?

        func run() throws {
            let path = ManagementPath(
                segments: ["containers", target.container, target.environment.rawValue, "notifications", "queued"],
                query: [("pushToken", pushToken), ("limit", limit.map(String.init))])
            let view = try management.client().result(NotificationsView.self, .get, path)
            if view.subscriptions.isEmpty { print("No subscriptions in \(target.environment) of \(target.container).") }
            for held in view.subscriptions {
                let entry = held.entry
                print(
                    [
                        "subscription", held.userName ?? entry.userRecordName,
                        entry.database == "public" ? entry.database : "\(entry.database) of \(entry.owner)", entry.subscriptionID,
                        entry.watches, "last fired " + (held.lastFired.map(Self.time) ?? "never"), "queued \(held.queued)",
                    ].joined(separator: "\t"))
            }
            if view.queues.isEmpty { print("No push tokens held in \(target.environment) of \(target.container).") }
            for queue in view.queues {
                print(
                    [
                        "push-token", queue.id, queue.userName ?? queue.userRecordName ?? "", "created " + Self.time(queue.created),
                        "last poll " + (queue.lastPolled.map(Self.time) ?? "never"), "waiting \(queue.waiting)",
                    ].joined(separator: "\t"))
                for notification in queue.notifications {
                    let reason: String =
                        switch notification.kind {
                        case "query":
                            "\(notification.firesOn ?? "") \(notification.recordName ?? "") in zone \(notification.zoneName ?? "")"
                        case "zone": "zone \(notification.zoneName ?? "")"
                        default: "database"
                        }
                    print(
                        [
                            "  notification", notification.notificationID, notification.subscriptionID, reason,
                            Self.time(notification.created),
                            String(decoding: notification.payload.serialized(), as: UTF8.self),
                        ].joined(separator: "\t"))
                }
            }
        }

        static func time(_ milliseconds: Int64) -> String {
            Date(timeIntervalSince1970: Double(milliseconds) / 1000).formatted(.iso8601)
        }
    }
}
