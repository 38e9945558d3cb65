import CloudKitWire
import CloudStore

/// `records/modify`, `records/query` and `records/lookup`.
enum RecordsEndpoints {
    /// `records/modify`: `{operations, zoneID, atomic, desiredKeys, numbersAsStrings}` → `{records}`,
    /// passed to `completion` once the write has committed.
    static func modify(_ context: APIContext, completion: @escaping @Sendable (Result<JSONValue, any Error>) -> Void) throws {
        let database = try context.database()
        if case .modify(let scanned)? = context.scanned {
            // Scanning leaves bodies with short GUIDs to the tree, below.
            let request = try RecordsExchange.modifyRequest(
                scanned.operations, around: context.body, in: database,
                schema: try context.store.schema(context.container, context.environment))
            RecordsExchange.modify(request, in: database, numbersAsStrings: try context.numbersAsStrings(), completion: completion)
            return
        }
        let body = context.body
        // Every share has a short GUID; other records have none here. Say so rather than leave
        // the client waiting for a link that never comes.
        for operation in try body["operations"].array() ?? [] where try operation["record"]["createShortGUID"].bool() == true {
            guard try operation["record"]["recordType"].string() == Share.recordType else {
                throw WebServicesError.badRequest(
                    "\(operation["record"]["createShortGUID"].path): short GUIDs name shares here; save a \(Share.recordType) record for the record to share"
                )
            }
        }
        let request = try RecordsExchange.modifyRequest(
            body, in: database, schema: try context.store.schema(context.container, context.environment))
        RecordsExchange.modify(request, in: database, numbersAsStrings: try context.numbersAsStrings(), completion: completion)
    }

    /// `records/query`: `{query, zoneID, zoneWide, resultsLimit, continuationMarker, desiredKeys}` →
    /// `{records, continuationMarker?, syncToken?}`.
    static func query(_ context: APIContext) throws -> JSONValue {
        let token = try currentSyncToken(context)
        let database = try context.database()
        let schema = try context.store.schema(context.container, context.environment)
        if case .query(let scanned)? = context.scanned {
            return try RecordsExchange.query(
                scanned.query, around: context.body, in: database, schema: schema, numbersAsStrings: try context.numbersAsStrings(),
                syncToken: token)
        }
        return try RecordsExchange.query(
            context.body, in: database, schema: schema, numbersAsStrings: try context.numbersAsStrings(), syncToken: token)
    }

    /// `records/lookup`: `{records: [{recordName, desiredKeys?}], zoneID, desiredKeys}` → `{records, syncToken?}`.
    static func lookup(_ context: APIContext) throws -> JSONValue {
        let token = try currentSyncToken(context)
        if case .lookup(let scanned)? = context.scanned {
            return try RecordsExchange.lookup(
                scanned.lookups, around: context.body, in: try context.database(), numbersAsStrings: try context.numbersAsStrings(),
                syncToken: token)
        }
        return try RecordsExchange.lookup(
            context.body, in: try context.database(), numbersAsStrings: try context.numbersAsStrings(), syncToken: token)
    }

    /// `records/resolve`: `{shortGUIDs: [{value, shouldFetchRootRecord, rootRecordDesiredKeys}]}` →
    /// `{results: [ShortGUID Result | ShortGUID Fetch Error]}`.
    static func resolve(_ context: APIContext) throws -> JSONValue {
        let results = try context.store.resolveShares(
            try ShareWire.lookups(context.body), context.container, context.environment, as: context.caller, trace: context.trace)
        return shareResults(results, context)
    }

    /// `records/accept`: as `records/resolve`, accepting each share for the caller.
    static func accept(_ context: APIContext) throws -> JSONValue {
        let results = try context.store.acceptShares(
            try ShareWire.lookups(context.body), context.container, context.environment, as: context.caller, trace: context.trace)
        return shareResults(results, context)
    }

    private static func shareResults(_ results: [ShareResolution], _ context: APIContext) -> JSONValue {
        let encoder = RecordEncoder(numbersAsStrings: (try? context.numbersAsStrings()) ?? false, currentUser: context.caller.signedInUser)
        return .object(["results": .array(results.map { ShareWire.json($0, encoder: encoder) })])
    }

    /// The zone's sync token when the request asks `?getCurrentSyncToken=true`, for following the
    /// zone's changes from what the answer holds. Read before the records: a change made between
    /// the two then comes again in the feed, where read after it would be skipped.
    private static func currentSyncToken(_ context: APIContext) throws -> String? {
        guard context.request.queryParameter("getCurrentSyncToken") == "true" else { return nil }
        let zoneName = try ZoneWire.zoneName(context.body["zoneID"])
        guard case .zone(let zone)? = try context.database().lookupZones([zoneName]).first else { return nil }
        return zone.syncToken
    }
}
