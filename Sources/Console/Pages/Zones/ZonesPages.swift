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
        ]
    }

    private func zones(_ location: ConsoleLocation, _ request: ConsoleRequest) throws -> [ZoneRow] {
        let answer = try actions.zones(
            in: try location.identifier, environment: location.environment, database: location.database, user: location.user,
            as: request.identity)
        return answer.zones.map {
            ZoneRow(name: $0.zoneName, records: $0.records, bytes: EnvironmentUsage.storageBytes(ofRecordBytes: $0.recordBytes))
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
            context["zones"] = try zones(location, request).map { zone -> [String: Any] in
                var target = location
                target.zone = zone.name
                return [
                    "name": zone.name, "records": Formatting.count(zone.records), "bytes": Formatting.bytes(zone.bytes),
                    "recordsURL": target.path(.records), "isDefault": zone.name == ZoneID.defaultZoneName,
                    "deleteAction": location.path(.zones, "/" + URLEncoding.component(zone.name) + "/delete"),
                ]
            }
            context["canCreate"] = location.database == .private
            context["storageDefinition"] = UsagePages.storageDefinition
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
}

/// A zone as the list shows it.
struct ZoneRow {
    var name: String
    var records: Int64
    var bytes: Int64
}
