import CloudKitWire
import CloudStore

/// `records/modify`, `records/query` and `records/lookup`.
enum RecordsEndpoints {
    /// `records/modify`: `{operations, zoneID, atomic, desiredKeys, numbersAsStrings}` → `{records}`.
    static func modify(_ context: APIContext) throws -> JSONValue {
        let body = context.body
        let database = try context.database()
        // Short GUIDs name shares, which this server does not have yet: say so rather than
        // ignore the request and leave the client waiting for a link that never comes.
        for operation in try body["operations"].array() ?? [] where try operation["record"]["createShortGUID"].bool() == true {
            throw WebServicesError.badRequest(
                "\(operation["record"]["createShortGUID"].path): short GUIDs name shares, which this server does not support yet")
        }
        let request = try RecordsExchange.modifyRequest(
            body, in: database, schema: try context.store.schema(context.container, context.environment))
        return try RecordsExchange.modify(request, in: database, numbersAsStrings: try context.numbersAsStrings())
    }

    /// `records/query`: `{query, zoneID, zoneWide, resultsLimit, continuationMarker, desiredKeys}` →
    /// `{records, continuationMarker?}`.
    static func query(_ context: APIContext) throws -> JSONValue {
        try RecordsExchange.query(
            context.body, in: try context.database(), schema: try context.store.schema(context.container, context.environment),
            numbersAsStrings: try context.numbersAsStrings())
    }

    /// `records/lookup`: `{records: [{recordName, desiredKeys?}], zoneID, desiredKeys}` → `{records}`.
    static func lookup(_ context: APIContext) throws -> JSONValue {
        try RecordsExchange.lookup(context.body, in: try context.database(), numbersAsStrings: try context.numbersAsStrings())
    }
}
