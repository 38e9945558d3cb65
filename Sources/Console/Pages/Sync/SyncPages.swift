import CloudKitWire
import CloudStore
import Foundation
import HTTPServer

/// Sync in one environment: the change-feed inspector of a zone (its log after a sequence or
/// from a time, tombstones included, and what a client holding a given token would receive
/// next), every subscription with its subscriber (deletable), the push tokens users hold
/// (revocable), and the notifications waiting per push token.
///
/// Under `/console/containers/C/ENV/DB/sync` (`?zone=…&user=…`): `GET` with `after`, `since`
/// and `syncToken`; `POST /subscriptions/delete` and `POST /push-tokens/revoke` (each after a
/// confirmation page).
struct SyncPages: Sendable {
    let console: ConsolePages
    var actions: ManagementActions { console.actions }

    /// The templates these pages render.
    static let templates = ["console.sync"]

    /// The routes of these pages, under `/console`.
    var routes: [ConsoleRoute] {
        let pages = self
        let base = "/containers/:container/:environment/:database/sync"
        return [
            .get(base) { request in try pages.show(request) },
            .post(base + "/subscriptions/delete") { request in try pages.deleteSubscription(request) },
            .post(base + "/push-tokens/revoke") { request in try pages.revokePushToken(request) },
        ]
    }

    private func show(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let timeZone = Formatting.timeZone(of: request.http)
        let environment = location.environment.rawValue
        var context: [String: Any] = [
            "bar": location.bar(.sync, zones: console.zoneNames(location, request)), "hiddenFields": location.hiddenFields,
            "action": location.formPath(.sync), "timeZone": timeZone.identifier,
        ]
        if let reason = blocked(location) {
            context["blocked"] = reason
        } else {
            try inspect(location, request, timeZone, into: &context)
        }

        let subscriptions = try actions.subscriptions(in: location.container, environment: environment, as: request.identity)
        context["subscriptions"] = (subscriptions["subscriptions"]?.arrayValue ?? []).map { entry -> [String: Any] in
            let type = entry["subscriptionType"]?.stringValue ?? ""
            let what: String = switch type {
            case "query": "\(entry["query"]?["recordType"]?.stringValue ?? "") in "
                + (entry["zoneID"]?["zoneName"]?.stringValue.map { "zone \($0)" } ?? "every zone")
                + ", on " + (entry["firesOn"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: ", ")
                + ((entry["query"]?["filterBy"]?.arrayValue?.isEmpty ?? true) ? "" : ", filtered")
                + (entry["firesOnce"] == true ? ", once" : "")
            case "zone": "zone \(entry["zoneID"]?["zoneName"]?.stringValue ?? "")"
            default: "every zone of the database"
            }
            let database = entry["database"]?.stringValue ?? ""
            let owner = entry["owner"]?.stringValue ?? ""
            return [
                "user": entry["userRecordName"]?.stringValue ?? "", "database": database + (database == "public" ? "" : " of \(owner)"),
                "id": entry["subscriptionID"]?.stringValue ?? "", "type": type, "what": what,
                "fields": [
                    ["name": "subscriptionID", "value": entry["subscriptionID"]?.stringValue ?? ""],
                    ["name": "subscriber", "value": entry["userRecordName"]?.stringValue ?? ""],
                    ["name": "subscriptionDatabase", "value": database], ["name": "subscriptionOwner", "value": owner],
                ],
            ]
        }
        context["deleteAction"] = location.path(.sync, "/subscriptions/delete")
        let pushTokens = try actions.pushTokens(in: location.container, environment: environment, as: request.identity)
        context["pushTokens"] = (pushTokens["pushTokens"]?.arrayValue ?? []).map { token -> [String: Any] in
            [
                "id": token["id"]?.stringValue ?? "", "token": token["token"]?.stringValue ?? "",
                "user": token["userName"]?.stringValue ?? token["userRecordName"]?.stringValue ?? "—",
                "created": Formatting.time(token["created"]?.int64Value(acceptingNumericString: false) ?? 0, in: timeZone),
                "lastUsed": Formatting.time(token["lastUsed"]?.int64Value(acceptingNumericString: false) ?? 0, in: timeZone),
            ]
        }
        context["revokeAction"] = location.path(.sync, "/push-tokens/revoke")
        let queues = try actions.notificationQueues(in: location.container, environment: environment, as: request.identity)
        context["queues"] = (queues["queues"]?.arrayValue ?? []).map { queue -> [String: Any] in
            [
                "token": queue["token"]?.stringValue ?? "", "user": queue["userRecordName"]?.stringValue ?? "—",
                "waiting": Formatting.count(queue["waiting"]?.int64Value(acceptingNumericString: false) ?? 0),
            ]
        }
        return .page(Page("console.sync", context: context))
    }

    /// The change-feed inspector's part of the page.
    private func inspect(_ location: ConsoleLocation, _ request: ConsoleRequest, _ timeZone: TimeZone, into context: inout [String: Any]) throws {
        let after = request.query("after").flatMap { Int64($0) }
        let sinceText = request.query("since") ?? ""
        var since: Int64?
        if !sinceText.isEmpty {
            guard let parsed = Formatting.parseTime(sinceText, in: timeZone) else {
                throw ConsoleError.badRequest("'\(sinceText)' is not a time: use 2026-11-25T14:30")
            }
            since = parsed
        }
        context["after"] = after.map(String.init) ?? ""
        context["since"] = sinceText
        let log = try actions.changeLog(
            zone: location.zone, in: location.container, environment: location.environment.rawValue, database: location.databaseName,
            user: location.user, after: after, since: since, as: request.identity)
        context["syncToken"] = log["syncToken"]?.stringValue ?? ""
        context["lastSequence"] = Formatting.count(log["lastSequence"]?.int64Value(acceptingNumericString: false) ?? 0)
        let horizon = log["horizon"]?.int64Value(acceptingNumericString: false) ?? 0
        context["horizon"] = horizon > 0 ? Formatting.count(horizon) : ""
        context["entries"] = (log["entries"]?.arrayValue ?? []).map { entry -> [String: Any] in
            [
                "sequence": entry["sequence"]?.int64Value(acceptingNumericString: false).map(String.init) ?? "",
                "time": Formatting.time(entry["time"]?.int64Value(acceptingNumericString: false) ?? 0, in: timeZone),
                "kind": entry["kind"]?.stringValue ?? "", "isTombstone": entry["kind"] == "deleted",
                "recordName": entry["recordName"]?.stringValue ?? "", "recordType": entry["recordType"]?.stringValue ?? "",
                "creator": entry["creator"]?.stringValue ?? "",
            ]
        }
        guard let token = request.query("syncToken") else { return }
        context["heldToken"] = token
        do {
            let next = try actions.nextChanges(
                zone: location.zone, syncToken: token, in: location.container, environment: location.environment.rawValue,
                database: location.databaseName, user: location.user, as: request.identity)
            context["next"] = [
                "records": (next["records"]?.arrayValue ?? []).map { record -> [String: Any] in
                    ["recordName": record["recordName"]?.stringValue ?? "", "deleted": record["deleted"] == true,
                     "recordType": record["recordType"]?.stringValue ?? ""]
                },
                "count": Formatting.counted(Int64(next["records"]?.arrayValue?.count ?? 0), "change"),
                "moreComing": next["moreComing"] == true, "syncToken": next["syncToken"]?.stringValue ?? "",
            ]
        } catch let error as CloudStoreError {
            // What the client would be told instead: the page says it, in the client's terms.
            context["nextError"] = "\(CloudKitError(error).serverErrorCode): \(error.reason)"
        }
    }

    private func blocked(_ location: ConsoleLocation) -> String? {
        guard location.database != .public else { return nil }
        if location.environment == .production {
            return "In production a user's \(location.database) database belongs to them alone; inspect it in development."
        }
        if location.user == nil { return "Name the app user whose \(location.database) database's feed to inspect (act as user)." }
        return nil
    }

    private func revokePushToken(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let id = request.field("pushTokenID") ?? ""
        let user = request.field("pushTokenUser") ?? ""
        return try afterConfirmation(
            request, location, fields: [["name": "pushTokenID", "value": id], ["name": "pushTokenUser", "value": user]],
            title: "Revoke push token \(id)?",
            message: "The device of \(user) holding this push token will be handed no more notifications; its courier URL will answer "
                + "404. The app may register a new token while \(user) is signed in.",
            button: "Revoke push token"
        ) {
            _ = try actions.revokePushToken(id, in: location.container, environment: location.environment.rawValue, as: request.identity)
            return "Push token \(id) revoked."
        }
    }

    private func deleteSubscription(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let id = request.field("subscriptionID") ?? ""
        let subscriber = request.field("subscriber") ?? ""
        let database = request.field("subscriptionDatabase") ?? "public"
        let owner = request.field("subscriptionOwner")
        return try afterConfirmation(
            request, location,
            fields: [
                ["name": "subscriptionID", "value": id], ["name": "subscriber", "value": subscriber],
                ["name": "subscriptionDatabase", "value": database], ["name": "subscriptionOwner", "value": owner ?? ""],
            ],
            title: "Delete subscription \(id)?",
            message: "User \(subscriber) will no longer be notified by subscription \(id) of the \(database) database. "
                + "The app may create it again.",
            button: "Delete subscription"
        ) {
            _ = try actions.deleteSubscription(
                id, of: subscriber, database: database, owner: database == "public" ? nil : owner, in: location.container,
                environment: location.environment.rawValue, as: request.identity)
            return "Subscription \(id) deleted."
        }
    }

    /// A change of this page made once confirmed: first a confirmation page posting `fields`
    /// back, then the change, whose answer is the notice shown back on the Sync page.
    private func afterConfirmation(
        _ request: ConsoleRequest, _ location: ConsoleLocation, fields: [[String: String]], title: String, message: String, button: String,
        _ change: () throws -> String
    ) throws -> ConsoleAnswer {
        guard request.isConfirmed else {
            return .page(ConfirmPage.page(
                title: title, message: message, action: request.http.path, button: button, fields: location.hiddenFields + fields,
                cancelURL: location.path(.sync), bar: location.bar(.sync)))
        }
        return try console.attempt(back: location.path(.sync), change)
    }
}
