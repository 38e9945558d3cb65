import CloudKitWire
import CloudStore

/// The change feeds, in every database, the public one included: of records, `records/changes`
/// (the older one, which CloudKit JS 1.2.0 and MistKit call) and `changes/zone`; of zones,
/// `changes/database` and the older `zones/changes` (MistKit).
enum ChangesEndpoints {
    /// `records/changes`: `{zoneID, syncToken, resultsLimit, desiredKeys, desiredRecordTypes,
    /// numbersAsStrings, reverse}` → `{zoneID, records, syncToken, moreComing, reverse}`.
    static func records(_ context: APIContext) throws -> JSONValue {
        var answer = try ChangesExchange.zoneChanges(context.body, defaults: context.body, in: try context.database()).objectValue ?? [:]
        answer["reverse"] = .bool(try context.body["reverse"].bool() ?? false)
        return .object(answer)
    }

    /// `changes/zone`: `{zones: [{zoneID, syncToken, …}], …}` → `{zones: [...]}`.
    static func zones(_ context: APIContext) throws -> JSONValue {
        try ChangesExchange.zones(context.body, in: try context.database())
    }

    /// `changes/database`: `{syncToken, resultsLimit}` → `{zones, syncToken, moreComing}`.
    static func database(_ context: APIContext) throws -> JSONValue {
        try ChangesExchange.database(context.body, tokenKeys: ["syncToken"], in: try context.database())
    }

    /// `zones/changes`: as `changes/database`, the token read from `metaSyncToken` (Apple's
    /// documentation) or `syncToken` (MistKit) and answered under both.
    static func zoneLog(_ context: APIContext) throws -> JSONValue {
        try ChangesExchange.database(context.body, tokenKeys: ["metaSyncToken", "syncToken"], in: try context.database())
    }
}
