import CloudKitWire
import CloudStore

/// `zones/list`, `zones/lookup` and `zones/modify`.
enum ZonesEndpoints {
    /// `zones/list` → `{zones}`.
    static func list(_ context: APIContext) throws -> JSONValue {
        .object(["zones": .array(try context.database().zones().map(ZoneWire.json))])
    }

    /// `zones/lookup`: `{zones: [zoneID…]}` → `{zones}`.
    static func lookup(_ context: APIContext) throws -> JSONValue {
        let database = try context.database()
        var zones: [JSONValue] = []
        for zone in try context.body["zones"].requiredArray() {
            let zoneID = zone["zoneID"].isPresent ? zone["zoneID"] : zone
            // In the shared database each zone names its owner.
            let reached = database.reaching(owner: try ZoneWire.owner(zoneID))
            zones += try reached.lookupZones([try ZoneWire.zoneName(zoneID)]).map(ZoneWire.json)
        }
        return .object(["zones": .array(zones)])
    }

    /// `zones/modify`: `{operations: [{operationType, zone: {zoneID}}]}` → `{zones}`.
    static func modify(_ context: APIContext) throws -> JSONValue {
        let database = try context.database()
        var operations: [ZoneOperation] = []
        for operation in try context.body["operations"].requiredArray() {
            let typeName = try operation["operationType"].requiredString()
            guard let kind = ZoneOperation.Kind(rawValue: typeName) else {
                throw WebServicesError.badRequest("\(operation["operationType"].path) '\(typeName)' is not one of create, delete")
            }
            let zone = operation["zone"]
            guard zone.isPresent else { throw WebServicesError.badRequest("\(zone.path) is required") }
            let zoneID = zone["zoneID"].isPresent ? zone["zoneID"] : zone
            guard zoneID["zoneName"].isPresent else { throw WebServicesError.badRequest("\(zoneID.path).zoneName is required") }
            operations.append(ZoneOperation(kind, zoneName: try ZoneWire.zoneName(zoneID)))
        }
        return .object(["zones": .array(try database.modifyZones(operations).map(ZoneWire.json))])
    }
}
