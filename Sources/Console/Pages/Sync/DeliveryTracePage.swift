import CloudKitWire
import CloudStore
import Foundation
import HTTPServer

/// The Sync tab's third view, Delivery trace: a record's latest change traced to the
/// subscriptions it was weighed against — which fired, which did not and why — and what became
/// of each notification for each push token. Opened from a record of the change feed or a
/// subscription of the Notifications view; a read of metadata only.
///
/// Under `/console/containers/C/ENV/DB/sync/delivery?record=NAME[&subscription=ID]` (with the
/// zone and user as every Sync view takes them).
struct DeliveryTracePage: Sendable {
    let console: ConsolePages
    var actions: ManagementActions { console.actions }

    /// The templates these pages render.
    static let templates = ["console.sync-delivery"]

    /// The path of the view under the Sync section.
    static let suffix = "/delivery"

    /// The routes of these pages, under `/console`.
    var routes: [ConsoleRoute] {
        let pages = self
        return [.get("/containers/:container/:environment/:database/sync" + Self.suffix) { request in try pages.show(request) }]
    }

    /// The trace of `record` (and only `subscription`, when given) from `location`.
    static func url(_ location: ConsoleLocation, record: String?, subscription: String? = nil) -> String {
        location.path(.sync, suffix, query: [("record", record), ("subscription", subscription)])
    }

    private func show(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = console.settled(try ConsoleLocation(request), request)
        let timeZone = Formatting.timeZone(of: request.http)
        let record = request.query("record") ?? ""
        let subscription = request.query("subscription") ?? ""
        var context: [String: Any] = [
            "bar": location.bar(.sync, zones: console.zoneNames(location, request)),
            "views": NotificationsPage.views(location, current: "delivery"), "hiddenFields": location.hiddenFields,
            "action": location.formPath(.sync) + Self.suffix, "timeZone": timeZone.identifier, "record": record,
            "subscription": subscription, "zone": location.zone,
        ]
        guard !record.isEmpty else { return .page(Page("console.sync-delivery", context: context)) }
        let trace: DeliveryTraceView
        do {
            trace = try actions.traceDelivery(
                record: record, zone: location.zone, in: try location.identifier, environment: location.environment,
                database: location.database, user: location.user, zoneOwner: location.zoneOwner,
                subscriptionID: subscription.isEmpty ? nil : subscription, as: request.identity)
        } catch let error as CloudStoreError {
            guard case .notFound(let reason) = error else { throw error }
            context["traceError"] = reason
            return .page(Page("console.sync-delivery", context: context))
        }
        let names = UserNames(try location.identifier, actions)
        func time(_ value: Int64) -> String { Formatting.time(value, in: timeZone) }
        let change = trace.change
        context["change"] = [
            "kind": change.kind, "recordName": change.recordName, "recordType": change.recordType, "zone": change.zoneName,
            "sequence": String(change.sequence), "time": time(change.time),
            "modifiedBy": change.modifiedBy.map { names.label($0) } ?? "", "recordKnown": change.recordKnown,
        ]
        context["subscriptions"] = trace.subscriptions.map { traced -> [String: Any] in
            let entry = traced.entry
            return [
                "userLabel": names.context(entry.userRecordName),
                "database": entry.database + (entry.database == "public" ? "" : " of \(names.name(of: entry.owner) ?? entry.owner)"),
                "id": entry.subscriptionID, "type": entry.subscriptionType, "what": entry.watches, "matched": traced.matched,
                "fate": traced.fate, "fateClass": traced.fate.replacingOccurrences(of: " ", with: "-"), "why": traced.why,
                "checks": (traced.access?.checks ?? []).map { ["rule": $0.rule, "gives": $0.gives, "why": $0.why] },
                "decision": traced.access?.description ?? "",
                "notifications": traced.notifications.map { notification -> [String: Any] in
                    [
                        "subject": notification.subject ?? "", "created": time(notification.created),
                        "ends": notification.removed.map { "removed at its expiry, " + time($0) } ?? "expires "
                            + time(notification.expires),
                        "deliveries": notification.deliveries.map { delivery -> [String: Any] in
                            [
                                "tokenID": delivery.tokenID, "held": delivery.held, "fate": delivery.fate,
                                "channel": delivery.channel ?? "", "time": delivery.time.map(time) ?? "",
                            ]
                        },
                    ]
                },
            ]
        }
        return .page(Page("console.sync-delivery", context: context))
    }
}
