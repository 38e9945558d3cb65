import CloudStore
import HTTPServer

/// The zones of a database with their records and bytes; create one, delete one with every
/// record in it (after a confirmation naming the count).
///
/// Under `/console/containers/C/ENV/DB/zones` (`?user=…` for a private or shared database):
/// `GET`, `POST` (create), `POST /Z/delete`.
struct ZonesPages: Sendable {
    let console: ConsolePages
    var actions: ManagementActions { console.actions }

    /// The templates these pages render.
    static let templates = ["console.zones"]

    /// The routes of these pages, under `/console`.
    var routes: [ConsoleRoute] {
        let pages = self
        let base = "/containers/:container/:environment/:database/zones"
        return [
            .get(base) { request in try pages.list(request) },
            .post(base) { request in try pages.create(request) },
            .post(base + "/:zone/delete") { request in try pages.delete(request) },
            .post(base + "/:zone/leave") { request in try pages.leave(request) },
        ]
    }

    private func zones(_ location: ConsoleLocation, _ request: ConsoleRequest) throws -> [ZoneRow] {
        let answer = try actions.zones(
            in: try location.identifier, environment: location.environment, database: location.database, user: location.user,
            as: request.identity)
        return answer.zones.map {
            ZoneRow(
                name: $0.zoneName, owner: $0.ownerRecordName, records: $0.records,
                bytes: EnvironmentUsage.storageBytes(ofRecordBytes: $0.recordBytes))
        }
    }

    private func list(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        var context: [String: Any] = ["bar": location.bar(.zones), "hiddenFields": location.hiddenFields, "action": location.path(.zones)]
        if location.database != .public, location.environment == .production {
            context["blocked"] = "In production a user's \(location.database) database belongs to them alone; act as a user in development."
        } else if location.database != .public, location.user == nil {
            context["blocked"] = "Name the app user whose \(location.database) zones to see (act as user)."
        } else {
            let shared = location.database == .shared
            let names = shared ? UserNames(try location.identifier, actions) : UserNames([:])
            context["zones"] = try zones(location, request).map { zone -> [String: Any] in
                var target = location
                target.zone = zone.name
                if shared { target.zoneOwner = zone.owner }
                var row: [String: Any] = [
                    "name": zone.name, "records": Formatting.count(zone.records), "bytes": Formatting.bytes(zone.bytes),
                    "recordsURL": target.path(.records), "isDefault": zone.name == ZoneID.defaultZoneName,
                    "deleteAction": location.path(.zones, "/" + URLEncoding.component(zone.name) + "/delete"),
                    "restorePointURL": HistoryPages.path(location, "/restore-point", query: [("zone", zone.name)]),
                ]
                if shared {
                    row["owner"] = names.context(zone.owner)
                    row["leaveAction"] = location.path(.zones, "/" + URLEncoding.component(zone.name) + "/leave")
                    row["ownerField"] = zone.owner
                }
                return row
            }
            context["isShared"] = shared
            context["canCreate"] = location.database == .private
            context["storageDefinition"] = UsagePages.storageDefinition
            context["trashURL"] = HistoryPages.path(location, "/trash")
        }
        return .page(Page("console.zones", context: context))
    }

    private func create(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let name = (request.field("zoneName") ?? "").trimmingCharacters(in: .whitespaces)
        return try console.attempt(back: location.path(.zones)) {
            _ = try actions.createZone(
                name, in: try location.identifier, environment: location.environment, database: location.database, user: location.user,
                as: request.identity)
            return "Zone \(name) created."
        }
    }

    private func delete(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let name = request.path("zone")
        guard request.isConfirmed else {
            let records = (try? zones(location, request))?.first { $0.name == name }?.records ?? 0
            return .page(
                ConfirmPage.page(
                    title: "Delete zone \(name)?",
                    message: "This deletes the zone \(name) and its \(Formatting.count(records)) record\(records == 1 ? "" : "s") from the "
                        + "\(location.environment.rawValue) \(location.database) database\(location.user.map { " of \($0)" } ?? ""). "
                        + "It cannot be undone.",
                    action: request.http.path, button: "Delete zone and records", fields: location.hiddenFields,
                    cancelURL: location.path(.zones), bar: location.bar(.zones)))
        }
        return try console.attempt(back: location.path(.zones)) {
            _ = try actions.deleteZone(
                name, in: try location.identifier, environment: location.environment, database: location.database, user: location.user,
                as: request.identity)
            return "Zone \(name) deleted."
        }
    }

    /// Leaving a zone of the shared database: the user whose shared database it is leaves the
    /// zone's shares, after a confirmation naming the zone, its owner and the shares.
    private func leave(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        var location = try ConsoleLocation(request)
        let name = request.path("zone")
        guard location.database == .shared, let user = location.user, let owner = location.zoneOwner else {
            throw ConsoleError.badRequest("Only a zone of a user's shared database can be left, named with its owner.")
        }
        let back = location.path(.zones)
        let names = UserNames(try location.identifier, actions)
        guard request.isConfirmed else {
            let identifier = try location.identifier
            let shares = (try? actions.shares(in: identifier, environment: location.environment, as: request.identity))?.shares ?? []
            let left = shares.filter { share in
                share.zoneName == name && share.owner == owner
                    && share.participants.contains { ($0.name == user || $0.userRecordName == user) && $0.acceptanceStatus != "removed" }
            }
            location.zone = name
            return .page(
                ConfirmPage.page(
                    title: "Leave zone \(name) of \(names.label(owner))?",
                    message: "\(names.name(of: owner) ?? owner) shared this zone with \(user). Leaving takes \(user) out of "
                        + (left.count == 1 ? "its share" : "its \(left.count) shares")
                        + ": the zone leaves \(user)'s shared database, and only \(names.name(of: owner) ?? owner) can share it again. "
                        + "The zone and its records stay \(names.name(of: owner) ?? owner)'s.",
                    items: left.map { share in
                        "Share \(share.recordName)" + (share.rootRecordName.map { " of record \($0)" } ?? " of the whole zone")
                    },
                    action: request.http.path, button: "Leave zone", fields: location.hiddenFields, cancelURL: back,
                    bar: location.bar(.zones)))
        }
        return try console.attempt(back: back) {
            let left = try actions.leaveSharedZone(
                name, owner: owner, user: user, in: try location.identifier, environment: location.environment, as: request.identity)
            return
                "\(user) left zone \(name) of \(names.label(owner)) (\(left.shares.count == 1 ? "1 share" : "\(left.shares.count) shares"))."
        }
    }
}

/// A zone as the list shows it.
struct ZoneRow {
    var name: String
    /// The user record name of its owner.
    var owner: String
    var records: Int64
    var bytes: Int64
}
