import CloudKitWire
import CloudStore
import Foundation
import HTTPServer

/// Sync in one environment, its change-feed view: the change-feed inspector of a zone (its log
/// after a sequence or from a time, tombstones included, and what a client holding a given
/// token would receive next). Subscriptions, push tokens and queued notifications are the
/// Notifications view's (``NotificationsPage``).
///
/// Under `/console/containers/C/ENV/DB/sync` (`?zone=…&user=…`): `GET` with `after`, `before`,
/// `since`, `recordName`, `syncToken` and `reader`.
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
            .get(base) { request in try pages.show(request) }
        ]
    }

    private func show(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = console.settled(try ConsoleLocation(request), request)
        let timeZone = Formatting.timeZone(of: request.http)
        var context: [String: Any] = [
            "bar": location.bar(.sync, zones: console.zoneNames(location, request)), "hiddenFields": location.hiddenFields,
            "action": location.formPath(.sync), "timeZone": timeZone.identifier,
            "views": NotificationsPage.views(location, current: "feed"),
        ]
        if let reason = blocked(location) {
            context["blocked"] = reason
        } else {
            try inspect(location, request, timeZone, into: &context)
        }

        return .page(Page("console.sync", context: context))
    }

    /// The change-feed inspector's part of the page: a page of the log, newest first (by
    /// position, from a time, or of records by name), and what a client holding a token
    /// receives next as a chosen reader, with what it has not received marked in the log.
    private func inspect(_ location: ConsoleLocation, _ request: ConsoleRequest, _ timeZone: TimeZone, into context: inout [String: Any])
        throws
    {
        func number(_ name: String) throws -> Int64? {
            guard let text = request.query(name), !text.isEmpty else { return nil }
            guard let value = Int64(text) else { throw ConsoleError.badRequest("'\(text)' is not a change number") }
            return value
        }
        let sinceText = request.query("since") ?? ""
        var since: Int64?
        if !sinceText.isEmpty {
            guard let parsed = Formatting.parseTime(sinceText, in: timeZone) else {
                throw ConsoleError.badRequest("'\(sinceText)' is not a time: use 2026-11-25T14:30")
            }
            since = parsed
        }
        let recordName = request.query("recordName") ?? ""
        let token = request.query("syncToken")
        let reader = request.query("reader") ?? ""
        context["since"] = sinceText
        context["recordName"] = recordName
        context["reader"] = reader
        let range = ChangeLogRange(after: try number("after"), before: try number("before"), since: since, recordNamePrefix: recordName)
        let log = try actions.changeLog(
            zone: location.zone, in: try location.identifier, environment: location.environment, database: location.database,
            user: location.user, zoneOwner: location.zoneOwner, range: range, as: request.identity)
        context["syncToken"] = log.syncToken
        context["lastSequence"] = Formatting.count(log.lastSequence)
        context["horizon"] = log.horizon > 0 ? Formatting.count(log.horizon) : ""
        context["contentsHidden"] = log.contentsHidden

        // The container's users by name, read once: the readers offered and the held token's owner.
        let names = try actions.userNames(try location.identifier)
        var held: Int64?
        // The form asks with `simulate` too, so that an empty token (a first fetch) is asked for.
        let simulating = token != nil || request.query("simulate") != nil
        if simulating {
            context["heldToken"] = token ?? ""
            do {
                let next = try actions.nextChanges(
                    zone: location.zone, syncToken: token, in: try location.identifier, environment: location.environment,
                    database: location.database, user: location.user, zoneOwner: location.zoneOwner, reader: reader,
                    as: request.identity)
                context["next"] = nextContext(next, location, timeZone, UserNames(names))
                held = next.heldToken.map(\.sequence)
            } catch let error as CloudStoreError {
                // What the client would be told instead: the page says it, in the client's terms.
                context["nextError"] = "\(CloudKitError(error).serverErrorCode): \(error.reason)"
            }
        }
        context["entries"] = log.entries.map { entry -> [String: Any] in
            [
                "sequence": String(entry.sequence), "time": Formatting.time(entry.time, in: timeZone),
                "kind": entry.kind, "isTombstone": entry.kind == "deleted", "isPending": held.map { entry.sequence > $0 } ?? false,
                "recordName": entry.recordName, "recordType": entry.recordType,
                "recordURL": entry.kind == "deleted" || entry.recordName.isEmpty
                    ? "" : location.path(.records, "/" + URLEncoding.component(entry.recordName)),
                "changedBy": entry.modifiedBy == Caller.operatorRecordName
                    ? "an operator" : entry.modifiedByName ?? entry.modifiedBy ?? "—",
                "via": entry.via ?? "",
                "traceURL": entry.recordName.isEmpty ? "" : DeliveryTracePage.url(location, record: entry.recordName),
            ]
        }
        // The pager keeps the search, the held token and the reader.
        let kept: [(String, String?)] = [
            ("recordName", recordName.isEmpty ? nil : recordName), ("syncToken", token), ("reader", reader.isEmpty ? nil : reader),
            ("simulate", simulating && token == nil ? "1" : nil),
        ]
        if let newest = log.entries.first, let oldest = log.entries.last {
            context["position"] =
                "Changes \(Formatting.count(oldest.sequence))–\(Formatting.count(newest.sequence)) of \(Formatting.count(log.lastSequence))"
                + (recordName.isEmpty ? "" : ", of records named \(recordName)…")
            if log.hasNewer {
                context["newerURL"] = location.path(.sync, query: [("after", String(newest.sequence))] + kept)
                context["newestURL"] = location.path(.sync, query: kept)
            }
            if log.hasOlder { context["olderURL"] = location.path(.sync, query: [("before", String(oldest.sequence))] + kept) }
        }
        context["readers"] = names.values.sorted().map { ["name": $0] }
        context["worldReader"] = ManagementActions.worldReader
        context["isPublic"] = location.database == .public
    }

    /// The simulated next page, for the template.
    private func nextContext(_ next: NextChangesView, _ location: ConsoleLocation, _ timeZone: TimeZone, _ names: UserNames)
        -> [String: Any]
    {
        var context: [String: Any] = [
            "records": next.records.map { change -> [String: Any] in
                var recordType = ""
                if case .record(_, let type) = change { recordType = type }
                var deleted = false
                if case .deleted = change { deleted = true }
                return ["recordName": change.recordName ?? "", "deleted": deleted, "recordType": recordType]
            },
            "count": Formatting.counted(Int64(next.records.count), "change"),
            "moreComing": next.moreComing, "syncToken": next.syncToken,
            "reader": next.reader == ManagementActions.worldReader ? "the world (no signed-in user)" : next.reader,
        ]
        if let held = next.heldToken {
            context["held"] = [
                "zone": held.zoneName.map { "\($0) (\(held.owner.flatMap(names.name(of:)) ?? held.owner ?? ""))" } ?? location.zone,
                "sequence": Formatting.count(held.sequence),
                "time": held.time.map { Formatting.time($0, in: timeZone) } ?? "",
            ]
        }
        return context
    }

    private func blocked(_ location: ConsoleLocation) -> String? {
        guard location.database != .public else { return nil }
        if location.user == nil { return "Name the app user whose \(location.database) database's feed to inspect (act as user)." }
        return nil
    }
}
