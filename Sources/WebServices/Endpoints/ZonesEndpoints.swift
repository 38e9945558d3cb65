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
        var names: [String] = []
        for zone in try context.body["zones"].requiredArray() {
            names.append(try ZoneWire.zoneName(zone["zoneID"].isPresent ? zone["zoneID"] : zone))
        }
        return .object(["zones": .array(try database.lookupZones(names).map(ZoneWire.json))])
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
