import CloudKitWire
import CloudStore

/// `records/modify`, `records/query` and `records/lookup`.
enum RecordsEndpoints {
    /// `records/modify`: `{operations, zoneID, atomic, desiredKeys, numbersAsStrings}` → `{records}`.
    static func modify(_ context: APIContext) throws -> JSONValue {
        let body = context.body
        let database = try context.database()
        let desiredKeys = try body["desiredKeys"].strings()
        let zoneName = try ZoneWire.zoneName(body["zoneID"])
        let wireOperations = try body["operations"].requiredArray()
        var decoder = RecordOperationDecoder(schema: try context.store.schema(context.container, context.environment))
        let untyped = RecordOperationDecoder.namesNeedingTypes(wireOperations)
        if !untyped.isEmpty, untyped.count <= ModifyRequest.maximumOperations {
            for case .record(let record) in try database.lookup(untyped.map { RecordLookup($0, desiredKeys: []) }, zoneName: zoneName) {
                decoder.existingTypes[record.recordName] = record.recordType
            }
        }
        var operations: [RecordOperation] = []
        for operation in wireOperations { operations.append(try decoder.operation(operation)) }
        // Short GUIDs name shares, which this server does not have yet: say so rather than
        // ignore the request and leave the client waiting for a link that never comes.
        for operation in wireOperations where try operation["record"]["createShortGUID"].bool() == true {
            throw WebServicesError.badRequest(
                "\(operation["record"]["createShortGUID"].path): short GUIDs name shares, which this server does not support yet")
        }
        let request = ModifyRequest(
            operations: operations, zoneName: zoneName, atomic: try body["atomic"].bool() ?? true, desiredKeys: desiredKeys)
        let results = try database.modify(request)
        let encoder = RecordEncoder(numbersAsStrings: try context.numbersAsStrings())
        return .object(["records": .array(zip(operations, results).map { operation, result in
            encoder.json(result, desiredKeys: operation.desiredKeys ?? desiredKeys)
        })])
    }

    /// `records/query`: `{query, zoneID, zoneWide, resultsLimit, continuationMarker, desiredKeys}` →
    /// `{records, continuationMarker?}`.
    static func query(_ context: APIContext) throws -> JSONValue {
        let body = context.body
        let database = try context.database()
        let query = try QueryDecoder(schema: try context.store.schema(context.container, context.environment)).query(body["query"])
        let desiredKeys = try body["desiredKeys"].strings()
        let zoneName = body["zoneID"].isPresent ? try ZoneWire.zoneName(body["zoneID"]) : nil
        let result = try database.query(QueryRequest(
            query: query, zoneName: zoneName, zoneWide: try body["zoneWide"].bool() ?? false,
            resultsLimit: try body["resultsLimit"].integer(), continuationMarker: try body["continuationMarker"].string(),
            desiredKeys: desiredKeys))
        let encoder = RecordEncoder(numbersAsStrings: try context.numbersAsStrings())
        var response: JSONObject = [
            "records": .array(result.records.map { encoder.json(.record($0), desiredKeys: desiredKeys) })
        ]
        if let marker = result.continuationMarker { response["continuationMarker"] = .string(marker) }
        return .object(response)
    }

    /// `records/lookup`: `{records: [{recordName, desiredKeys?}], zoneID, desiredKeys}` → `{records}`.
    static func lookup(_ context: APIContext) throws -> JSONValue {
        let body = context.body
        let database = try context.database()
        let desiredKeys = try body["desiredKeys"].strings()
        var lookups: [RecordLookup] = []
        for entry in try body["records"].requiredArray() {
            // A bare record name is accepted as well as the documented dictionary.
            if let name = entry.json?.stringValue {
                lookups.append(RecordLookup(name))
                continue
            }
            try entry.requireObjectIfPresent()
            lookups.append(RecordLookup(try entry["recordName"].requiredString(), desiredKeys: try entry["desiredKeys"].strings()))
        }
        let results = try database.lookup(lookups, zoneName: try ZoneWire.zoneName(body["zoneID"]), desiredKeys: desiredKeys)
        let encoder = RecordEncoder(numbersAsStrings: try context.numbersAsStrings())
        return .object(["records": .array(zip(lookups, results).map { lookup, result in
            encoder.json(result, desiredKeys: lookup.desiredKeys ?? desiredKeys)
        })])
    }
}
