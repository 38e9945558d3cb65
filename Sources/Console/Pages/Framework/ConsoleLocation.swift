import CloudKitWire
import CloudStore

/// Where in a container a page is: the environment, database, zone and — for a private or
/// shared database — the user whose database it is. All of it lives in the address
/// (`/console/containers/C/development/private/records?zone=Notes&user=alice`), so every view can
/// be bookmarked and shared.
struct ConsoleLocation {
    /// The container identifier.
    var container: String
    /// The environment.
    var environment: Environment
    /// The database.
    var database: DatabaseScope
    /// The zone of the records page.
    var zone: String
    /// The app user whose private or shared database is shown ("act as user").
    var user: String?
    /// In the shared database, the owner of the zone (user record name): the zones there are
    /// other users', and two owners may each have a zone of the same name.
    var zoneOwner: String?

    /// The location a page request names in its path (`container`, `environment`, `database`)
    /// and query (`zone`, `user`).
    /// - Throws: ``ConsoleError/notFound(_:)`` for an environment or database that does not exist.
    init(_ request: ConsoleRequest) throws(ConsoleError) {
        container = request.path("container")
        // The console words these refusals as pages that do not exist; the parsers are CloudStore's.
        do {
            environment = try Environment(parsing: request.path("environment"))
        } catch {
            throw .notFound("There is no environment '\(request.path("environment"))': use development or production.")
        }
        let databaseName = request.http.pathParameters["database"] ?? "public"
        do {
            database = try DatabaseScope(parsing: databaseName)
        } catch {
            throw .notFound("There is no database '\(databaseName)': use public, private or shared.")
        }
        zone = request.query("zone") ?? request.field("zone") ?? ZoneID.defaultZoneName
        user = database == .public ? nil : (request.query("user") ?? request.field("user"))
        if database == .shared {
            zoneOwner = (request.query("owner") ?? request.field("owner")).flatMap { $0.isEmpty ? nil : $0 }
            // The shared database's zone picker names zone and owner in one value.
            if let picked = request.query(Self.sharedZoneField), let (owner, name) = Self.sharedZone(picked) {
                (zoneOwner, zone) = (owner, name)
            }
        }
    }

    /// The field of the shared database's zone picker, whose values are ``sharedZoneValue(_:owner:)``.
    static let sharedZoneField = "sharedZone"

    /// A shared zone as the picker's value: `owner:zone` (a user record name has no colon).
    static func sharedZoneValue(_ zone: String, owner: String) -> String { owner + ":" + zone }

    /// The owner and zone of a picker's value.
    static func sharedZone(_ value: String) -> (owner: String, zone: String)? {
        guard let colon = value.firstIndex(of: ":"), colon != value.startIndex else { return nil }
        let zone = String(value[value.index(after: colon)...])
        return zone.isEmpty ? nil : (String(value[..<colon]), zone)
    }

    /// The zone as a CloudKit request body names it: its name, and in the shared database its owner.
    var zoneID: JSONValue {
        var zoneID: JSONObject = ["zoneName": .string(zone)]
        if let zoneOwner { zoneID["ownerRecordName"] = .string(zoneOwner) }
        return .object(zoneID)
    }

    /// A location at the top of a container.
    init(container: String, environment: Environment = .development, database: DatabaseScope = .public) {
        self.container = container
        self.environment = environment
        self.database = database
        zone = ZoneID.defaultZoneName
        user = nil
    }

    /// The container as the actions take it. A malformed identifier is refused, with the store's
    /// reason, where a page first acts on it, as before the page had a typed container.
    var identifier: ContainerIdentifier {
        get throws(ConsoleError) {
            do { return try ContainerIdentifier(container) } catch { throw ConsoleError(error) }
        }
    }

    /// The owner the actions need for a private or shared database.
    var databaseName: String { database.rawValue }

    /// `/console/containers/C`.
    var containerPath: String { "/console/containers/" + URLEncoding.component(container) }

    /// The address of `section` here, with `query` added; the zone and user stay when the section uses them.
    func path(_ section: ConsoleSection, _ suffix: String = "", query: [(String, String?)] = []) -> String {
        let path = formPath(section) + suffix
        var pairs: [(String, String?)] = []
        if section.usesZone, zone != ZoneID.defaultZoneName { pairs.append(("zone", zone)) }
        if section.usesZone, let zoneOwner { pairs.append(("owner", zoneOwner)) }
        if section.usesDatabase, database != .public { pairs.append(("user", user)) }
        return path + URLEncoding.query(pairs + query)
    }

    /// The address of `section` here without a query: where its GET forms go, with the zone
    /// and user in ``hiddenFields``.
    func formPath(_ section: ConsoleSection) -> String {
        containerPath + "/" + environment.rawValue + (section.usesDatabase ? "/" + database.rawValue : "") + "/" + section.rawValue
    }

    /// Hidden form fields that keep the zone and user on a post.
    var hiddenFields: [[String: String]] {
        var fields: [[String: String]] = []
        if zone != ZoneID.defaultZoneName { fields.append(["name": "zone", "value": zone]) }
        if let zoneOwner { fields.append(["name": "owner", "value": zoneOwner]) }
        if database != .public, let user { fields.append(["name": "user", "value": user]) }
        return fields
    }

    /// The bar's template values: environment, database and zone switches, the user box and the tabs.
    /// - Parameters:
    ///   - section: The page shown.
    ///   - zones: The zones to offer, when the page uses zones.
    func bar(_ section: ConsoleSection, zones: [ZonePick] = []) -> [String: Any] {
        var context: [String: Any] = [
            "container": container,
            "containerPath": containerPath,
            "environments": Environment.allCases.map { environment -> [String: Any] in
                var target = self
                target.environment = environment
                return [
                    "label": environment == .development ? "Development" : "Production", "url": target.path(section),
                    "current": environment == self.environment,
                ]
            },
            "tabs": ConsoleSection.allCases.map { tab -> [String: Any] in
                ["label": tab.title, "url": path(tab), "current": tab == section, "section": tab.rawValue, "database": database.rawValue]
            },
            "isProduction": environment == .production,
            // On a page that is the same in both environments the switch would change nothing.
            "showsEnvironments": !section.isContainerWide,
        ]
        if section.usesDatabase {
            context["databases"] = DatabaseScope.allCases.map { scope -> [String: Any] in
                var target = self
                target.database = scope
                target.zone = ZoneID.defaultZoneName
                target.zoneOwner = nil
                return ["label": scope.rawValue.capitalized, "url": target.path(section), "current": scope == database]
            }
            context["hasDatabases"] = true
            // The zone and user form only where it has a field: not on the public Zones page.
            if section.usesZone || database != .public { context["actionPath"] = formPath(section) }
            context["needsUser"] = database != .public
            context["user"] = user ?? ""
            context["canActAsUser"] = environment == .development
        }
        if section.usesZone {
            var picks = zones
            let current = ZonePick(name: zone, owner: zoneOwner, ownerName: nil)
            if !picks.contains(where: { $0.name == zone && $0.owner == zoneOwner }) { picks.insert(current, at: 0) }
            context["zones"] = picks.map { pick -> [String: Any] in
                [
                    "name": pick.name, "label": pick.label,
                    "value": pick.owner.map { Self.sharedZoneValue(pick.name, owner: $0) } ?? pick.name,
                    "selected": pick.name == zone && pick.owner == zoneOwner,
                ]
            }
            context["zoneField"] = database == .shared ? Self.sharedZoneField : "zone"
            context["zone"] = zone
            context["hasZones"] = true
        }
        return context
    }
}

/// A zone the bar's picker offers: its name and, in the shared database, its owner, shown by
/// name ("Trips — alice").
struct ZonePick: Equatable {
    /// The zone's name.
    var name: String
    /// The owner's user record name, in the shared database.
    var owner: String?
    /// The owner's sign-in name, when known.
    var ownerName: String?

    /// What the picker shows.
    var label: String {
        guard let owner else { return name }
        return name + " — " + (ownerName ?? UserNames.short(owner))
    }
}
