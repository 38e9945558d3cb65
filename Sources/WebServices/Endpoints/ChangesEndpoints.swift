import CloudKitWire
import CloudStore

/// The record change feeds: `records/changes` (the older one, which CloudKit JS 1.2.0 and MistKit
/// call) and `changes/zone`, in every database, the public one included.
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
}
