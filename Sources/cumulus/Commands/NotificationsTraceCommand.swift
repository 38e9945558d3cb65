import ArgumentParser
import CloudStore
import Console

extension NotificationsCommand {
    /// `cumulus notifications trace --container C [--environment E] [--database D] [--zone Z]
    /// --record NAME [--subscription ID]`: a record's latest change traced to the subscriptions
    /// it was weighed against and what became of their notifications.
    struct Trace: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Trace a record's latest change: which subscriptions fired, which did not and why, and who was notified.",
            discussion: """
                Prints the change (kind, record type, time), then one line per subscription: subscriber, database, id, what it \\
                watches, its fate (not matched, skipped, queued, coalesced, delivered, expired) and why; below a subscriber who \\
                may not read the record, each grant weighed; below each notification, each push token's part in it (fetched by \\
                a long poll or an event stream, waiting, expired, not for this token). Times are ISO 8601 in UTC.
                """)

        @OptionGroup var management: ManagementOptions

        @OptionGroup var target: ContainerOptions

        @OptionGroup var database: DatabaseOptions

        @Option(help: "In the shared database, the owner of the zone.")
        var owner: String?

        @Option(help: "The zone.")
        var zone = ZoneID.defaultZoneName

        @Option(help: "The record's name.")
        var record: String

        @Option(help: "Only the subscriptions with this ID.")
        var subscription: String?

        func run() throws {
            let path = database.path(
                target, ["zones", zone, "records", record, "delivery"], query: [("owner", owner), ("subscription", subscription)])
            let trace = try management.client().result(DeliveryTraceView.self, .get, path)
            let change = trace.change
            print(
                [
                    "change", change.kind, change.recordName, change.recordType, "zone \(change.zoneName)", "sequence \(change.sequence)",
                    Queues.time(change.time),
                ].joined(separator: "\t"))
            if trace.subscriptions.isEmpty { print("No subscription was weighed against it.") }
            for traced in trace.subscriptions {
                let entry = traced.entry
                print(
                    [
                        "subscription", traced.userName ?? entry.userRecordName,
                        entry.database == "public" ? entry.database : "\(entry.database) of \(entry.owner)", entry.subscriptionID,
                        entry.watches, traced.fate, traced.why,
                    ].joined(separator: "\t"))
                for check in traced.access?.checks ?? [] {
                    print(["  grant", check.rule, check.gives ? "gives" : "does not give", check.why].joined(separator: "\t"))
                }
                for notification in traced.notifications {
                    print(
                        [
                            "  notification", "for \(notification.subject ?? "the zone")", "queued " + Queues.time(notification.created),
                            notification.removed.map { "removed " + Queues.time($0) } ?? "expires " + Queues.time(notification.expires),
                        ].joined(separator: "\t"))
                    for delivery in notification.deliveries {
                        print(
                            [
                                "    push-token", delivery.tokenID + (delivery.held ? "" : " (no longer held)"), delivery.fate,
                                delivery.channel ?? "", delivery.time.map(Queues.time) ?? "",
                            ].joined(separator: "\t"))
                    }
                }
            }
        }
    }
}
