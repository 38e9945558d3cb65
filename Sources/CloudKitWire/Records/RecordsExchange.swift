import CloudStore

/// `records/query`, `records/lookup` and `records/modify` from request body to response body,
/// against one database: the data API and the management API both answer through these, so a
/// record reads and writes the same whichever door it comes through.
public enum RecordsExchange {
    /// `records/query`: `{query, zoneID, zoneWide, resultsLimit, continuationMarker, desiredKeys}` →
    /// `{records, continuationMarker?, syncToken?}`, with the zone's `syncToken` when one is given.
    public static func query(
        _ body: WireValue, in database: CloudDatabase, schema: Schema, numbersAsStrings: Bool, syncToken: String? = nil
    ) throws -> JSONValue {
        try query(
            try QueryDecoder(schema: schema).query(body["query"]), around: body, in: database, numbersAsStrings: numbersAsStrings,
            syncToken: syncToken)
    }

    /// As ``query(_:in:schema:numbersAsStrings:syncToken:)``, for a query scanned from the body's
    /// bytes: `body` holds its other members. The same answer, or the same error.
    public static func query(
        _ scanned: ScannedQuery, around body: WireValue, in database: CloudDatabase, schema: Schema, numbersAsStrings: Bool,
        syncToken: String? = nil
    ) throws -> JSONValue {
        try query(
            try QueryDecoder(schema: schema).query(scanned), around: body, in: database, numbersAsStrings: numbersAsStrings,
            syncToken: syncToken)
    }

    private static func query(
        _ query: Query, around body: WireValue, in database: CloudDatabase, numbersAsStrings: Bool, syncToken: String?
    ) throws -> JSONValue {
        let desiredKeys = try body["desiredKeys"].strings()
        let zoneName = body["zoneID"].isPresent ? try ZoneWire.zoneName(body["zoneID"]) : nil
        let result = try database.query(
            QueryRequest(
                query: query, zoneName: zoneName, zoneWide: try body["zoneWide"].bool() ?? false,
                resultsLimit: try body["resultsLimit"].integer(), continuationMarker: try body["continuationMarker"].string(),
                desiredKeys: desiredKeys))
        let encoder = RecordEncoder(numbersAsStrings: numbersAsStrings, currentUser: database.caller.signedInUser)
        return encoder.page(result.records, desiredKeys: desiredKeys, continuationMarker: result.continuationMarker, syncToken: syncToken)
    }

    /// `records/lookup`: `{records: [{recordName, desiredKeys?}], zoneID, desiredKeys}` →
    /// `{records, syncToken?}`, with the zone's `syncToken` when one is given.
    public static func lookup(_ body: WireValue, in database: CloudDatabase, numbersAsStrings: Bool, syncToken: String? = nil) throws
        -> JSONValue
    {
        try lookup(around: body, in: database, numbersAsStrings: numbersAsStrings, syncToken: syncToken) { () throws(WireError) in
            try lookups(body)
        }
    }

    /// As ``lookup(_:in:numbersAsStrings:syncToken:)``, for lookups scanned from the body's
    /// bytes: `body` holds its other members. The same answer, or the same error.
    public static func lookup(
        _ lookups: [RecordLookup], around body: WireValue, in database: CloudDatabase, numbersAsStrings: Bool, syncToken: String? = nil
    ) throws -> JSONValue {
        try lookup(around: body, in: database, numbersAsStrings: numbersAsStrings, syncToken: syncToken) { lookups }
    }

    /// The records a `records/lookup` body asks for: its `records`, each a record name or a
    /// dictionary with `recordName` and maybe `desiredKeys`.
    public static func lookups(_ body: WireValue) throws(WireError) -> [RecordLookup] {
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
        return lookups
    }

    private static func lookup(
        around body: WireValue, in database: CloudDatabase, numbersAsStrings: Bool, syncToken: String?,
        _ readLookups: () throws(WireError) -> [RecordLookup]
    ) throws -> JSONValue {
        let desiredKeys = try body["desiredKeys"].strings()
        let lookups = try readLookups()
        let results = try database.lookup(lookups, zoneName: try ZoneWire.zoneName(body["zoneID"]), desiredKeys: desiredKeys)
        let encoder = RecordEncoder(numbersAsStrings: numbersAsStrings, currentUser: database.caller.signedInUser)
        return encoder.page(results, syncToken: syncToken) {
            lookups.indices.contains($0) ? lookups[$0].desiredKeys ?? desiredKeys : desiredKeys
        }
    }

    /// The operations of a `records/modify` body, each field read as its declared type; records
    /// an operation names without a `recordType` are looked up for theirs.
    public static func modifyRequest(_ body: WireValue, in database: CloudDatabase, schema: Schema) throws -> ModifyRequest {
        try modifyRequest(
            around: body, in: database, schema: schema, operations: { () throws(WireError) in try body["operations"].requiredArray() },
            untyped: RecordOperationDecoder.namesNeedingTypes,
            decode: { (decoder, _, operation) throws(WireError) in try decoder.operation(operation) })
    }

    /// As ``modifyRequest(_:in:schema:)``, for operations scanned from the body's bytes: `body`
    /// holds its other members. The same request, or the same error, in the same order.
    public static func modifyRequest(
        _ operations: [ScannedOperation], around body: WireValue, in database: CloudDatabase, schema: Schema
    ) throws -> ModifyRequest {
        try modifyRequest(
            around: body, in: database, schema: schema, operations: { operations },
            untyped: RecordOperationDecoder.namesNeedingTypes,
            decode: { (decoder, index, operation) throws(WireError) in try decoder.operation(operation, at: index) })
    }

    private static func modifyRequest<Operation>(
        around body: WireValue, in database: CloudDatabase, schema: Schema,
        operations readOperations: () throws(WireError) -> [Operation], untyped: ([Operation]) -> [String],
        decode: (RecordOperationDecoder, Int, Operation) throws(WireError) -> RecordOperation
    ) throws -> ModifyRequest {
        let zoneName = try ZoneWire.zoneName(body["zoneID"])
        let given = try readOperations()
        let decoder = try decoder(schema, typing: untyped(given), in: database, zoneName: zoneName)
        var operations: [RecordOperation] = []
        operations.reserveCapacity(given.count)
        for (index, operation) in given.enumerated() { operations.append(try decode(decoder, index, operation)) }
        return ModifyRequest(
            operations: operations, zoneName: zoneName, atomic: try body["atomic"].bool() ?? true,
            desiredKeys: try body["desiredKeys"].strings())
    }

    /// A decoder for `schema` that knows the stored types of the records `untyped` names.
    private static func decoder(
        _ schema: Schema, typing untyped: [String], in database: CloudDatabase, zoneName: String
    ) throws -> RecordOperationDecoder {
        var decoder = RecordOperationDecoder(schema: schema)
        if !untyped.isEmpty, untyped.count <= ModifyRequest.maximumOperations {
            for case .record(let record) in try database.lookup(untyped.map { RecordLookup($0, desiredKeys: []) }, zoneName: zoneName) {
                decoder.existingTypes[record.recordName] = record.recordType
            }
        }
        return decoder
    }

    /// Applies a modify request and answers `{records}`: one result per operation, in order.
    public static func modify(_ request: ModifyRequest, in database: CloudDatabase, numbersAsStrings: Bool) throws -> JSONValue {
        answer(to: request, try database.modify(request), in: database, numbersAsStrings: numbersAsStrings)
    }

    /// As `modify(_:in:numbersAsStrings:)`, returning at once: `completion` gets the answer
    /// after the commit, from the writer's thread (another one for a large request; see
    /// `CloudDatabase.modify(_:completion:)`).
    public static func modify(
        _ request: ModifyRequest, in database: CloudDatabase, numbersAsStrings: Bool,
        completion: @escaping @Sendable (Result<JSONValue, any Error>) -> Void
    ) {
        database.modify(request) { result in
            completion(result.map { answer(to: request, $0, in: database, numbersAsStrings: numbersAsStrings) })
        }
    }

    /// The `{records}` answer to `request` for the `results` the store gave: one per operation, in order.
    public static func answer(to request: ModifyRequest, _ results: [RecordResult], in database: CloudDatabase, numbersAsStrings: Bool)
        -> JSONValue
    {
        let encoder = RecordEncoder(numbersAsStrings: numbersAsStrings, currentUser: database.caller.signedInUser)
        return encoder.page(results) { position in
            request.operations.indices.contains(position)
                ? request.operations[position].desiredKeys ?? request.desiredKeys : request.desiredKeys
        }
    }
}
