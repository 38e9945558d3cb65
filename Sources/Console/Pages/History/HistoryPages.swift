import CloudKitWire
import CloudStore
import Foundation
import HTTPServer

/// A database's trash, a record's history and the restore-point dialog: what the history
/// actions the management API and the CLI call, as pages that work without script.
///
/// Under `/console/containers/C/ENV/DB` (`?user=…` for a private or shared database):
/// - `GET /trash` the deleted records and zones (`?zone=…&type=…` filter them); `POST /trash/restore`
///   restores the selected records (`record` = `zone/name`), one zone (`restoreZone`), or
///   everything deleted since a time (`since`);
/// - `GET /records/NAME/history` the record's versions with what each change changed;
///   `POST /records/NAME/revert` writes a version back as a conflict-checked save;
/// - `GET /restore-point` the dialog; `POST /restore-point` shows the dry run on the confirm
///   step, and applies it once confirmed.
struct HistoryPages: Sendable {
    let console: ConsolePages
    var actions: ManagementActions { console.actions }

    /// The templates these pages render.
    static let templates = ["console.trash", "console.history", "console.restore-point"]

    /// The routes of these pages, under `/console`.
    var routes: [ConsoleRoute] {
        let pages = self
        let base = "/containers/:container/:environment/:database"
        return [
            .get(base + "/trash") { request in try pages.trash(request) },
            .post(base + "/trash/restore") { request in try pages.restore(request) },
            .get(base + "/records/:record/history") { request in try pages.history(request) },
            .post(base + "/records/:record/revert") { request in try pages.revert(request) },
            .get(base + "/restore-point") { request in try pages.restorePointForm(request) },
            .post(base + "/restore-point") { request in try pages.restorePoint(request) },
            .post(base + "/history-retention") { request in try pages.setRetention(request) },
        ]
    }

    // MARK: - Where

    /// The address of one of these pages of `location`'s database (`/trash`, `/restore-point`),
    /// keeping its user, with `query` added.
    static func path(_ location: ConsoleLocation, _ page: String, query: [(String, String?)] = []) -> String {
        formPath(location, page) + URLEncoding.query((location.database == .public ? [] : [("user", location.user)]) + query)
    }

    /// The address of one of these pages without a query: where its forms go, the user in ``userFields(_:)``.
    static func formPath(_ location: ConsoleLocation, _ page: String) -> String {
        location.containerPath + "/" + location.environment.rawValue + "/" + location.database.rawValue + page
    }

    /// The hidden fields keeping the user (and a shared zone's owner) on a post.
    static func userFields(_ location: ConsoleLocation) -> [[String: String]] {
        location.hiddenFields.filter { $0["name"] != "zone" }
    }

    /// Why the database's records cannot be shown, as the records page says it; `nil` when they can.
    func blocked(_ location: ConsoleLocation) -> String? { RecordsPages(console: console).blocked(location) }

    /// The time the forms offer first: an hour ago.
    private static var anHourAgo: Int64 { Int64(Date().timeIntervalSince1970 * 1000) - 3_600_000 }

    /// A time the operator typed or picked in their time zone, as milliseconds for the actions.
    private static func time(_ text: String?, _ name: String, _ timeZone: TimeZone) throws -> String {
        guard let text, !text.isEmpty, let milliseconds = Formatting.parseTime(text, in: timeZone) else {
            throw ConsoleError.badRequest("Give the \(name) as a date and time (\(timeZone.identifier)).")
        }
        return String(milliseconds)
    }

    /// The base template values: the bar (the Zones tab's, whose database switch and user box
    /// these pages share), the user fields and the time zone.
    private func frame(_ location: ConsoleLocation, _ request: ConsoleRequest) -> [String: Any] {
        [
            "bar": location.bar(.zones), "userFields": Self.userFields(location),
            "timeZone": Formatting.timeZone(of: request.http).identifier, "database": location.database.rawValue,
            "environment": location.environment.rawValue, "user": location.user ?? "",
        ]
    }

    /// The filter's choices: every zone of the database and of the trash, every type of the schema.
    private func choices(
        _ location: ConsoleLocation, _ request: ConsoleRequest, zone: String?, type: String?, trashed: [String] = []
    ) -> [String: Any] {
        let zones = console.zoneNames(location, request).map(\.name)
        let names = (zones + trashed.filter { !zones.contains($0) })
        let types =
            (try? actions.schema(of: try location.identifier, environment: location.environment, as: request.identity))
            .map { SchemaView($0).recordTypes.map(\.name) } ?? []
        return [
            "zoneChoices": names.map { ["name": $0, "selected": $0 == zone] },
            "typeChoices": types.map { ["name": $0, "selected": $0 == type] },
        ]
    }

    // MARK: - Trash

    /// The most deleted records a page of the trash lists, the most recently deleted first; its
    /// "next page" link lists the following ones.
    static let shownRecords = 200

    private func trash(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        var context = frame(location, request)
        if let reason = blocked(location) {
            context["blocked"] = reason
            return .page(Page("console.trash", context: context))
        }
        let zone = request.query("zone")
        let type = request.query("type")
        let timeZone = Formatting.timeZone(of: request.http)
        let after = request.query("after").flatMap { $0.isEmpty ? nil : $0 }
        let trash = try actions.trash(
            in: try location.identifier, environment: location.environment, database: location.database, user: location.user,
            zone: zone, type: type, limit: Self.shownRecords, after: after, as: request.identity)
        let people = UserNames(try location.identifier, actions)
        context.merge(choices(location, request, zone: zone, type: type, trashed: trash.zones.map(\.zoneName))) { _, new in new }
        context["nextPage"] =
            trash.next.map { Self.path(location, "/trash", query: [("zone", zone), ("type", type), ("after", $0)]) } ?? ""
        context["firstPage"] = after == nil ? "" : Self.path(location, "/trash", query: [("zone", zone), ("type", type)])
        context["paged"] = after != nil || trash.next != nil
        context["shownRecords"] = String(Self.shownRecords)
        context["records"] = trash.records.map { version -> [String: Any] in
            var target = location
            target.zone = version.zoneName
            return [
                "recordName": version.recordName, "recordType": version.recordType, "zoneName": version.zoneName,
                "value": URLEncoding.component(version.zoneName) + "/" + version.recordName,
                "deleted": Formatting.time(version.time, in: timeZone), "by": people.context(version.modifier),
                "via": version.via ?? "", "withZone": version.replacement == RecordVersion.Replacement.zoneDeleted.name,
                "historyURL": target.path(.records, "/" + URLEncoding.component(version.recordName) + "/history"),
            ]
        }
        context["hasRecords"] = !trash.records.isEmpty
        context["deletedZones"] = trash.zones.map { zone -> [String: Any] in
            [
                "zoneName": zone.zoneName, "deleted": Formatting.time(zone.deleted, in: timeZone), "by": people.context(zone.modifier),
                "records": Formatting.counted(Int64(zone.records), "record"),
            ]
        }
        context["hasDeletedZones"] = !trash.zones.isEmpty
        context["filterAction"] = Self.formPath(location, "/trash")
        context["restoreAction"] = Self.path(location, "/trash/restore")
        context["filterFields"] = [["name": "zone", "value": zone ?? ""], ["name": "type", "value": type ?? ""]]
        context["scope"] =
            (zone.map { "zone \($0)" } ?? "every zone") + (type.map { ", type \($0)" } ?? "")
        context["sinceValue"] = Formatting.localInput(Self.anHourAgo, in: timeZone)
        let retention = try actions.historyRetention(in: try location.identifier, environment: location.environment, as: request.identity)
        context["retention"] = [
            "days": String(max(retention.seconds / 86_400, 1)), "isDefault": retention.isDefault,
            "historyBytes": Formatting.bytes(retention.historyBytes), "action": Self.path(location, "/history-retention"),
        ]
        return .page(Page("console.trash", context: context))
    }

    /// Sets how long the environment keeps its history and trash, in whole days, or gives it
    /// back the server's default; back to the trash with a notice.
    private func setRetention(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        return try console.attempt(back: Self.path(location, "/trash")) {
            let days: Int64?
            if request.field("serverDefault") != nil {
                days = nil
            } else {
                guard let text = request.field("days"), let value = Int64(text), (1...3650).contains(value) else {
                    throw ConsoleError.badRequest("Keep the trash from 1 to 3,650 days")
                }
                days = value
            }
            let set = try actions.setHistoryRetention(
                seconds: days.map { $0 * 86_400 }, in: try location.identifier, environment: location.environment, as: request.identity)
            return "The \(location.environment.rawValue) environment keeps its history and trash \(set.seconds / 86_400) days"
                + (set.isDefault ? ", the server's default." : ".")
        }
    }

    private func restore(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        if let reason = blocked(location) { throw ConsoleError.badRequest(reason) }
        let zone = request.field("zone").flatMap { $0.isEmpty ? nil : $0 }
        let type = request.field("type").flatMap { $0.isEmpty ? nil : $0 }
        let back = Self.path(location, "/trash", query: [("zone", zone), ("type", type)])
        let timeZone = Formatting.timeZone(of: request.http)
        func run(zone: String?, type: String?, records: [String]?, since: String?) throws -> RestoreView {
            try actions.restoreFromTrash(
                in: try location.identifier, environment: location.environment, database: location.database, user: location.user,
                zone: zone, type: type, records: records, since: since, as: request.identity)
        }
        return try console.attempt(back: back) {
            if let restoreZone = request.field("restoreZone"), !restoreZone.isEmpty {
                let outcome = try run(zone: restoreZone, type: nil, records: nil, since: nil)
                return "Zone \(restoreZone) restored with \(Formatting.counted(Int64(outcome.restored), "record"))."
            }
            if request.field("restoreSince") != nil {
                let since = try Self.time(request.field("since"), "time", timeZone)
                let outcome = try run(zone: zone, type: type, records: nil, since: since)
                return Self.describe(restored: outcome.restored, zones: outcome.zonesRestored)
            }
            // Each selected record is `zone/name`, the zone percent-encoded: restored zone by zone.
            var byZone: [String: [String]] = [:]
            for value in request.fields("record") {
                guard let slash = value.firstIndex(of: "/"), let zoneName = PercentDecoding.decode(String(value[..<slash])) else {
                    continue
                }
                byZone[zoneName, default: []].append(String(value[value.index(after: slash)...]))
            }
            guard !byZone.isEmpty else { throw ConsoleError.badRequest("Select the records to restore first.") }
            var restored = 0
            var zones: [String] = []
            for (zoneName, names) in byZone.sorted(by: { $0.key < $1.key }) {
                let outcome = try run(zone: zoneName, type: nil, records: names, since: nil)
                restored += outcome.restored
                zones += outcome.zonesRestored
            }
            return Self.describe(restored: restored, zones: zones)
        }
    }

    /// What a restore from the trash did, in a sentence.
    private static func describe(restored: Int, zones: [String]) -> String {
        "Restored \(Formatting.counted(Int64(restored), "record"))"
            + (zones.isEmpty ? "" : " and \(Formatting.noun(Int64(zones.count), "zone")) " + zones.joined(separator: ", ")) + "."
    }

    // MARK: - A record's history

    private func history(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        if let reason = blocked(location) { throw ConsoleError.badRequest(reason) }
        return .page(try historyPage(location, request, error: nil))
    }

    /// The history page of the record in the path, with `error` shown above its versions.
    private func historyPage(_ location: ConsoleLocation, _ request: ConsoleRequest, error: ConsoleError?) throws -> Page {
        let name = request.path("record")
        let history = try actions.recordHistory(
            name, zone: location.zone, in: try location.identifier, environment: location.environment, database: location.database,
            user: location.user, as: request.identity)
        let timeZone = Formatting.timeZone(of: request.http)
        let people = UserNames(try location.identifier, actions)
        let display = FieldDisplay(location: location, recordName: name, timeZone: timeZone)
        let recordPath = location.path(.records, "/" + URLEncoding.component(name))
        var context = frame(location, request)
        context["bar"] = location.bar(.records)
        context["recordName"] = name
        context["zoneName"] = history.zoneName
        context["exists"] = history.current != nil
        context["recordURL"] = recordPath
        context["trashURL"] = Self.path(location, "/trash", query: [("zone", location.zone)])
        context["hiddenFields"] = location.hiddenFields
        let currentTag = history.current?["recordChangeTag"]?.stringValue ?? ""
        context["changeTag"] = currentTag
        // A field's value in a record as CloudKit carries it, as text.
        func text(_ record: JSONValue?, _ field: String) -> String {
            guard let record else { return "(deleted)" }
            if field == "(parent)" { return record["parent"]?["recordName"]?.stringValue ?? "(none)" }
            guard let value = record["fields"]?[field], value["value"] != nil, value["value"] != .null else { return "(none)" }
            let shown = display.render(field, value)
            if let items = shown["items"] as? [[String: Any]] {
                return "[" + items.compactMap { $0["text"] as? String }.joined(separator: ", ") + "]"
            }
            return shown["text"] as? String ?? ""
        }
        context["versions"] = history.versions.enumerated().map { index, version -> [String: Any] in
            let replacement = RecordVersion.Replacement.allCases.first { $0.name == version.replacement }
            let newer: JSONValue? =
                replacement?.isDeletion == true ? nil : (index == 0 ? history.current : history.versions[index - 1].record)
            let changes = (version.changedFields ?? []).map { field in
                ["field": field, "old": text(version.record, field), "new": text(newer, field)]
            }
            return [
                "version": String(version.version), "recordType": version.recordType,
                "when": Formatting.time(version.time, in: timeZone), "by": people.context(version.modifier),
                "via": version.via ?? "", "what": replacement.map(Self.verb) ?? version.replacement,
                "changes": changes, "hasChanges": !changes.isEmpty,
                "modified": Formatting.time(
                    version.record["modified"]?["timestamp"]?.int64Value(acceptingNumericString: true) ?? 0, in: timeZone),
                "revertAction": location.path(.records, "/" + URLEncoding.component(name) + "/revert"),
            ]
        }
        context["hasVersions"] = !history.versions.isEmpty
        if let error {
            context["error"] = error.description
            context["isConflict"] = error.status == .conflict
        }
        var page = Page("console.history", context: context)
        if let error { page.status = error.status }
        return page
    }

    /// What a change that replaced a version did, for people.
    private static func verb(_ replacement: RecordVersion.Replacement) -> String {
        switch replacement {
        case .updated: "changed"
        case .deleted: "deleted the record"
        case .zoneDeleted: "deleted the record's zone"
        }
    }

    private func revert(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        if let reason = blocked(location) { throw ConsoleError.badRequest(reason) }
        let name = request.path("record")
        guard let version = request.field("version").flatMap(Int64.init) else {
            throw ConsoleError.badRequest("Choose the version to revert to.")
        }
        do {
            _ = try actions.revertRecord(
                name, zone: location.zone, toVersion: version, changeTag: request.field("changeTag").flatMap { $0.isEmpty ? nil : $0 },
                in: try location.identifier, environment: location.environment, database: location.database, user: location.user,
                as: request.identity)
            return .redirect(
                location.path(.records, "/" + URLEncoding.component(name)), .success("Record \(name) reverted to version \(version)."))
        } catch {
            let mapped = ConsoleError(error)
            guard mapped.isShown else { throw mapped }
            return .page(try historyPage(location, request, error: mapped))
        }
    }

    // MARK: - Restore point

    private func restorePointForm(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        return .page(
            restorePointPage(
                location, request, zone: request.query("zone"), type: request.query("type"), at: request.query("at"), error: nil))
    }

    /// The dialog: the zone, the type and the time, and `error` when the last try was refused.
    private func restorePointPage(
        _ location: ConsoleLocation, _ request: ConsoleRequest, zone: String?, type: String?, at: String?, error: ConsoleError?
    ) -> Page {
        var context = restoreDialog(location, request, zone: zone, type: type)
        context["action"] = Self.formPath(location, "/restore-point")
        context["trashURL"] = Self.path(location, "/trash")
        context["backupRestoreURL"] = Self.path(location, "/restore-from-backup", query: [("zone", zone), ("type", type)])
        context["at"] = at ?? Formatting.localInput(Self.anHourAgo, in: Formatting.timeZone(of: request.http))
        return Self.dialogPage("console.restore-point", context, error: error)
    }

    /// What a dialog restoring a zone or a type shows first: the frame, why the database's
    /// records cannot be shown (when they cannot), and the zones and types to choose from.
    func restoreDialog(_ location: ConsoleLocation, _ request: ConsoleRequest, zone: String?, type: String?) -> [String: Any] {
        var context = frame(location, request)
        if let reason = blocked(location) { context["blocked"] = reason }
        context.merge(choices(location, request, zone: zone, type: type)) { _, new in new }
        return context
    }

    /// A dialog's page, with `error` and its status when the last try was refused.
    static func dialogPage(_ template: String, _ context: [String: Any], error: ConsoleError?) -> Page {
        var page = Page(template, context: context)
        if let error {
            page.context["error"] = error.description
            page.status = error.status
        }
        return page
    }

    private func restorePoint(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let zone = request.field("zone").flatMap { $0.isEmpty ? nil : $0 }
        let type = request.field("type").flatMap { $0.isEmpty ? nil : $0 }
        let timeZone = Formatting.timeZone(of: request.http)
        do {
            if let reason = blocked(location) { throw ConsoleError.badRequest(reason) }
            let at = try Self.time(request.field("at"), "time to go back to", timeZone)
            func run(dryRun: Bool) throws -> RestoreView {
                try actions.restorePoint(
                    in: try location.identifier, environment: location.environment, database: location.database, user: location.user,
                    zone: zone, type: type, at: at, dryRun: dryRun, as: request.identity)
            }
            let moment = Formatting.time(Int64(at) ?? 0, in: timeZone) + " (\(timeZone.identifier))"
            let scope = [zone.map { "zone \($0)" }, type.map { "the \($0) records" }].compactMap { $0 }.joined(separator: ", ")
            let database =
                "the \(location.environment.rawValue) \(location.database) database\(location.user.map { " of \($0)" } ?? "")"
            guard request.isConfirmed else {
                let preview = try run(dryRun: true)
                let changes = preview.restored + preview.reverted + preview.removed
                guard changes > 0 else {
                    return .redirect(
                        Self.path(location, "/restore-point", query: [("zone", zone), ("type", type)]),
                        .success("Nothing in \(scope) of \(database) changed since \(moment): there is nothing to restore."))
                }
                return .page(
                    ConfirmPage.page(
                        title: "Restore \(scope) to \(moment)?",
                        message: "This undoes every change to \(scope) of \(database) since then: "
                            + "\(Formatting.counted(Int64(preview.removed), "record")) created since will be deleted, \(Formatting.counted(Int64(preview.reverted), "record")) changed since "
                            + "will get back \(preview.reverted == 1 ? "its" : "their") earlier version, "
                            + "\(Formatting.counted(Int64(preview.restored), "record")) deleted "
                            + "since will be restored. Each is a new change that clients receive; the rest of the database is "
                            + "untouched. What it replaces is kept in the history, so a later restore point can undo it."
                            + (preview.sample.isEmpty ? "" : " Some of the records:"),
                        items: preview.sample, action: request.http.path, button: "Restore \(Formatting.counted(Int64(changes), "record"))",
                        fields: Self.userFields(location) + [
                            ["name": "zone", "value": zone ?? ""], ["name": "type", "value": type ?? ""], ["name": "at", "value": at],
                        ],
                        cancelURL: Self.path(location, "/restore-point", query: [("zone", zone), ("type", type)]),
                        bar: location.bar(.zones)))
            }
            let outcome = try run(dryRun: false)
            return .redirect(
                location.path(.zones),
                .success(
                    "Restored \(scope) of \(database) to \(moment): \(outcome.removed) deleted, \(outcome.reverted) reverted, "
                        + "\(outcome.restored) restored."))
        } catch {
            let mapped = ConsoleError(error)
            guard mapped.isShown else { throw mapped }
            let at = request.field("at").map { Int64($0).map { Formatting.localInput($0, in: timeZone) } ?? $0 }
            return .page(restorePointPage(location, request, zone: zone, type: type, at: at, error: mapped))
        }
    }
}
