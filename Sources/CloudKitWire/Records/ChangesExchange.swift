import CloudStore

/// The record change feeds from request body to response body: `records/changes` (one zone, its
/// options at the top level) and `changes/zone` (several zones, each with its own options over
/// the request's).
public enum ChangesExchange {
    /// One zone's changes as both feeds answer them: `{zoneID, records, syncToken, moreComing}`.
    /// - Parameters:
    ///   - options: the zone's dictionary; `defaults` the request's, read for what it leaves out.
    public static func zoneChanges(_ options: WireValue, defaults: WireValue, in database: CloudDatabase) throws -> JSONValue {
        func option(_ key: String, _ other: String? = nil) -> WireValue {
            let own = other.map { options.first(key, $0) } ?? options[key]
            guard !own.isPresent else { return own }
            return other.map { defaults.first(key, $0) } ?? defaults[key]
        }
        let desiredKeys = try option("desiredKeys").strings()
        let changes = try database.zoneChanges(
            zoneName: try ZoneWire.zoneName(options["zoneID"]), syncToken: try option("syncToken").string(),
            resultsLimit: try option("resultsLimit").integer(), desiredKeys: desiredKeys,
            desiredRecordTypes: try option("desiredRecordTypes").strings(), reverse: try option("reverse").bool() ?? false)
        var encoder = RecordEncoder(numbersAsStrings: try option("numbersAsStrings", "numberAsStrings").bool() ?? false)
        encoder.currentUser = database.caller.signedInUser
        return .object([
            "zoneID": ZoneWire.json(changes.zoneID), "records": encoder.array(changes.records) { _ in desiredKeys },
            "syncToken": .string(changes.syncToken),
            "moreComing": .bool(changes.moreComing),
        ])
    }

    /// `changes/zone`: `{zones: [{zoneID, syncToken, …}], resultsLimit, desiredKeys, …}` →
    /// `{zones: [{zoneID, records, syncToken, moreComing} | {zoneID, serverErrorCode, reason}]}`:
    /// a zone that cannot be read (unknown, or its token refused) is an error in its place.
    public static func zones(_ body: WireValue, in database: CloudDatabase) throws -> JSONValue {
        var zones: [JSONValue] = []
        for entry in try body["zones"].requiredArray() {
            try entry.requireObjectIfPresent()
            do {
                // In the shared database each zone names its owner.
                zones.append(try zoneChanges(entry, defaults: body, in: database.reaching(owner: try ZoneWire.owner(entry["zoneID"]))))
            } catch let error as CloudStoreError where error.isPerItem {
                // The zone ID was read before anything could fail: a malformed one fails the request.
                let zoneID = ZoneWire.zoneID(entry["zoneID"].json ?? .object([:]), owner: database.database.owner)
                zones.append(ZoneWire.error(zoneID ?? .defaultZone(of: database.database), error))
            }
        }
        return .object(["zones": .array(zones)])
    }

    /// The zone feeds, `changes/database` and `zones/changes`: `{<token key>, resultsLimit}` →
    /// `{zones: [Zone | {zoneID, deleted: true}], <token keys>, moreComing}`.
    /// - Parameter tokenKeys: the keys the token may come under, first found wins; the answer
    ///   carries it under each.
    public static func database(_ body: WireValue, tokenKeys: [String], in database: CloudDatabase) throws -> JSONValue {
        var token: String?
        for key in tokenKeys where token == nil { token = try body[key].string() }
        let changes = try database.databaseChanges(syncToken: token, resultsLimit: try body["resultsLimit"].integer())
        var answer: JSONObject = ["zones": .array(changes.zones.map(ZoneWire.json))]
        for key in tokenKeys { answer[key] = .string(changes.syncToken) }
        answer["moreComing"] = .bool(changes.moreComing)
        return .object(answer)
    }
}
