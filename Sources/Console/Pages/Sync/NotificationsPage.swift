import CloudKitWire
import CloudStore
import Foundation
import HTTPServer

/// The Sync tab's second view, Notifications: why a device was or was not told of a change.
/// Every subscription with its filter in words, who holds it, when it last fired (linked to the
/// log around then) and how many notifications it queued (deletable); every push token users
/// hold with its user, its device's last poll and a link to the user's requests (revocable);
/// and each token's waiting notifications, with the payload the courier will hand out.
///
/// Under `/console/containers/C/ENV/DB/sync/notifications`; `POST …/sync/subscriptions/delete`
/// and `POST …/sync/push-tokens/revoke` (each after a confirmation page) come back here.
struct NotificationsPage: Sendable {
    let console: ConsolePages
    var actions: ManagementActions { console.actions }

    /// The templates these pages render.
    static let templates = ["console.sync-notifications", "console.sync-views"]

    /// The path of the view under the Sync section.
    static let suffix = "/notifications"

    /// The routes of these pages, under `/console`.
    var routes: [ConsoleRoute] {
        let pages = self
        let base = "/containers/:container/:environment/:database/sync"
        return [
            .get(base + Self.suffix) { request in try pages.show(request) },
            .post(base + "/subscriptions/delete") { request in try pages.deleteSubscription(request) },
            .post(base + "/push-tokens/revoke") { request in try pages.revokePushToken(request) },
        ]
    }

    /// The sub-navigation between the Sync tab's views, for their templates.
    static func views(_ location: ConsoleLocation, current: String) -> [[String: Any]] {
        [
            ["label": "Change feed", "url": location.path(.sync), "current": current == "feed"],
            ["label": "Notifications", "url": location.path(.sync, suffix), "current": current == "notifications"],
            ["label": "Delivery trace", "url": location.path(.sync, DeliveryTracePage.suffix), "current": current == "delivery"],
        ]
    }

    private func show(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = console.settled(try ConsoleLocation(request), request)
        let timeZone = Formatting.timeZone(of: request.http)
        let identifier = try location.identifier
        let view = try actions.notifications(in: identifier, environment: location.environment, as: request.identity)
        let names = UserNames(identifier, actions)
        func time(_ value: Int64?) -> String { value.map { Formatting.time($0, in: timeZone) } ?? "" }
        // The log around a moment: a minute either side, in the operator's time zone.
        func logsAround(_ value: Int64) -> String {
            location.path(
                .logs,
                query: [
                    ("from", Formatting.localInput(value - 60_000, in: timeZone)),
                    ("to", Formatting.localInput(value + 60_000, in: timeZone)),
                ])
        }
        var context: [String: Any] = [
            "bar": location.bar(.sync, zones: console.zoneNames(location, request)),
            "views": Self.views(location, current: "notifications"),
            "hiddenFields": location.hiddenFields, "timeZone": timeZone.identifier,
            "deleteAction": location.path(.sync, "/subscriptions/delete"), "revokeAction": location.path(.sync, "/push-tokens/revoke"),
            "production": location.environment == .production,
        ]
        context["subscriptions"] = view.subscriptions.map { held -> [String: Any] in
            let entry = held.entry
            let database = entry.database
            return [
                "userLabel": names.context(entry.userRecordName),
                "database": database + (database == "public" ? "" : " of \(names.name(of: entry.owner) ?? entry.owner)"),
                "id": entry.subscriptionID, "type": entry.subscriptionType, "what": entry.watches,
                "lastFired": time(held.lastFired), "logsURL": held.lastFired.map(logsAround) ?? "",
                "queued": Formatting.count(held.queued),
                "traceURL": DeliveryTracePage.url(
                    subscriptionLocation(location, held.entry), record: nil, subscription: entry.subscriptionID),
                "fields": [
                    ["name": "subscriptionID", "value": entry.subscriptionID],
                    ["name": "subscriber", "value": entry.userRecordName],
                    ["name": "subscriptionDatabase", "value": database], ["name": "subscriptionOwner", "value": entry.owner],
                ],
            ]
        }
        context["pushTokens"] = view.queues.map { queue -> [String: Any] in
            var token: [String: Any] = [
                "id": queue.id, "token": queue.token, "user": names.label(queue.userRecordName ?? ""),
                "userLabel": names.context(queue.userRecordName), "created": time(queue.created),
                "lastPolled": queue.lastPolled.map { Formatting.time($0, in: timeZone) } ?? "never",
                "waiting": Formatting.count(queue.waiting), "hasWaiting": queue.waiting > 0,
                "shown": queue.waiting > Int64(queue.notifications.count)
                    ? "the oldest \(queue.notifications.count) of \(Formatting.count(queue.waiting))" : "",
                "notifications": queue.notifications.map { notification -> [String: Any] in
                    let zone = notification.zoneName.map { zone in
                        // The public database's zones have no owner to name.
                        zone
                            + (notification.zoneOwner.flatMap { $0 == DatabaseID.publicOwner ? nil : $0 }.map {
                                " of " + (names.name(of: $0) ?? UserNames.short($0))
                            } ?? "")
                    }
                    let reason: String =
                        switch notification.kind {
                        case "query": "\(notification.firesOn ?? "") of \(notification.recordName ?? "") in zone \(zone ?? "")"
                        case "zone": "records of zone \(zone ?? "") changed"
                        default: "zones of the \(notification.database) database changed"
                        }
                    return [
                        "id": notification.notificationID, "subscription": notification.subscriptionID, "reason": reason,
                        "database": notification.database, "created": time(notification.created),
                        "payload": String(decoding: notification.payload.serialized(), as: UTF8.self),
                        "withheld": notification.contentsWithheld,
                    ]
                },
            ]
            if let user = queue.userName ?? queue.userRecordName {
                token["logsURL"] = location.path(.logs, query: [("user", user)])
            }
            return token
        }
        return .page(Page("console.sync-notifications", context: context))
    }

    /// Where a subscription's database is, for its trace: the public database, or its owner's.
    private func subscriptionLocation(_ location: ConsoleLocation, _ entry: SubscriptionsView.Entry) -> ConsoleLocation {
        var place = location
        place.database = (try? DatabaseScope(parsing: entry.database)) ?? .public
        place.user = place.database == .public ? nil : entry.owner
        (place.zone, place.zoneOwner) = (ZoneID.defaultZoneName, nil)
        return place
    }

    private func revokePushToken(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let id = request.field("pushTokenID") ?? ""
        let user = UserNames(try location.identifier, actions).label(request.field("pushTokenUser") ?? "")
        return try afterConfirmation(
            request, location, fields: [["name": "pushTokenID", "value": id], ["name": "pushTokenUser", "value": user]],
            title: "Revoke push token \(id)?",
            message: "The device of \(user) holding this push token will be handed no more notifications; its courier URL will answer "
                + "404. The app may register a new token while \(user) is signed in.",
            button: "Revoke push token"
        ) {
            _ = try actions.revokePushToken(id, in: try location.identifier, environment: location.environment, as: request.identity)
            return "Push token \(id) revoked."
        }
    }

    private func deleteSubscription(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let id = request.field("subscriptionID") ?? ""
        let subscriber = request.field("subscriber") ?? ""
        let label = UserNames(try location.identifier, actions).label(subscriber)
        let database = request.field("subscriptionDatabase") ?? "public"
        let owner = request.field("subscriptionOwner")
        return try afterConfirmation(
            request, location,
            fields: [
                ["name": "subscriptionID", "value": id], ["name": "subscriber", "value": subscriber],
                ["name": "subscriptionDatabase", "value": database], ["name": "subscriptionOwner", "value": owner ?? ""],
            ],
            title: "Delete subscription \(id)?",
            message: "User \(label) will no longer be notified by subscription \(id) of the \(database) database. "
                + "The app may create it again.",
            button: "Delete subscription"
        ) {
            // A missing container is answered (404) before a malformed database (400), as before.
            let container = try actions.existingContainer(try location.identifier)
            _ = try actions.deleteSubscription(
                id, of: subscriber, database: try DatabaseScope(parsing: database), owner: database == "public" ? nil : owner,
                in: container, environment: location.environment, as: request.identity)
            return "Subscription \(id) deleted."
        }
    }

    /// A change of this view made once confirmed: first a confirmation page posting `fields`
    /// back, then the change, whose answer is the notice shown back on the Notifications view.
    private func afterConfirmation(
        _ request: ConsoleRequest, _ location: ConsoleLocation, fields: [[String: String]], title: String, message: String, button: String,
        _ change: () throws -> String
    ) throws -> ConsoleAnswer {
        let back = location.path(.sync, Self.suffix)
        guard request.isConfirmed else {
            return .page(
                ConfirmPage.page(
                    title: title, message: message, action: request.http.path, button: button, fields: location.hiddenFields + fields,
                    cancelURL: back, bar: location.bar(.sync)))
        }
        return try console.attempt(back: back, change)
    }
}
