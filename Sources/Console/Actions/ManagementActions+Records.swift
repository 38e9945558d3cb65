import CloudKitWire
import CloudStore

extension ManagementActions {
    /// Queries records with a CloudKit `records/query` body (`query`, `zoneID`, `resultsLimit`,
    /// `continuationMarker`, `desiredKeys`), answering as CloudKit does: `{records, continuationMarker?}`.
    /// - Parameter user: the owner of a private or shared database (sign-in name or user record name).
    /// - Throws: ``CloudStoreError/missingIndex(_:)`` naming the index a filter or sort needs.
    public func queryRecords(
        _ body: JSONValue, in container: ContainerIdentifier, environment: Environment, database: DatabaseScope, user: String?,
        as actor: OperatorIdentity
    ) throws -> JSONValue {
        let (handle, schema) = try recordsDatabase(container, environment, database, user, actor, zoneID: body["zoneID"])
        return try RecordsExchange.query(.body(body), in: handle, schema: schema, numbersAsStrings: false)
    }

    /// A page of a zone's records in record-name order, read without a query, so that no index
    /// is needed: `{records, continuationMarker?}` as a query answers, the marker being the
    /// record name the next page starts after. In the shared database the zone is the one `owner`
    /// shared, and only what the user's shares give them is listed.
    /// - Parameter recordType: only records of this type; every type when `nil`.
    public func browseRecords(
        zone: String, owner: String? = nil, recordType: String?, after: String?, limit: Int, in container: ContainerIdentifier,
        environment: Environment, database: DatabaseScope, user: String?, as actor: OperatorIdentity
    ) throws -> JSONValue {
        let (handle, _) = try recordsDatabase(container, environment, database, user, actor, zoneID: Self.zoneID(zone, owner: owner))
        let listing = try handle.listRecords(zoneName: zone, recordType: recordType, after: after, limit: limit)
        return RecordEncoder(numbersAsStrings: false, currentUser: nil).page(
            listing.records, desiredKeys: nil, continuationMarker: listing.continuation)
    }

    /// The records of a zone pointing at one record (by a reference field or as its parent), from
    /// a bounded scan of the zone: `{referrers: [{recordName, recordType, field?}], complete}`; in
    /// the shared database, of the zone `owner` shared, within what the user's shares give them.
    public func recordReferrers(
        of recordName: String, zone: String, owner: String? = nil, in container: ContainerIdentifier, environment: Environment,
        database: DatabaseScope, user: String?, as actor: OperatorIdentity
    ) throws -> JSONValue {
        let (handle, _) = try recordsDatabase(container, environment, database, user, actor, zoneID: Self.zoneID(zone, owner: owner))
        let found = try handle.referrers(of: recordName, zoneName: zone)
        let referrers: [JSONValue] = found.referrers.map { referrer in
            var object: JSONObject = ["recordName": .string(referrer.recordName), "recordType": .string(referrer.recordType)]
            if let field = referrer.field { object["field"] = .string(field) }
            return .object(object)
        }
        return ["referrers": .array(referrers), "complete": .bool(found.complete)]
    }

    /// How many records of each type a zone holds: `{recordType: count}`; in the shared database
    /// the zone is the one `owner` shared, and only the records the user's shares give them count.
    public func recordCounts(
        zone: String, owner: String? = nil, in container: ContainerIdentifier, environment: Environment, database: DatabaseScope,
        user: String?, as actor: OperatorIdentity
    ) throws -> [String: Int64] {
        let (handle, _) = try recordsDatabase(container, environment, database, user, actor, zoneID: Self.zoneID(zone, owner: owner))
        return try handle.recordCounts(zoneName: zone)
    }

    /// A `zoneID` as CloudKit's bodies name a zone: its name and, in the shared database, its owner.
    static func zoneID(_ zone: String, owner: String?) -> JSONValue {
        owner.map { ["zoneName": .string(zone), "ownerRecordName": .string($0)] } ?? ["zoneName": .string(zone)]
    }

    /// Stores a file for the ASSET field `field` of a record of `recordType` through the path the
    /// data API's `assets/upload` takes (an upload ticket, then the file), so that the same rules
    /// refuse it: a caller who may not change records, a file over the asset limit or the
    /// environment's quota. Answers the receipt a record save takes as the field's value.
    /// - Parameter recordName: the record the file is for; a new one when `nil`.
    public func uploadAsset(
        _ content: [UInt8], recordType: String, field: String, recordName: String?, zone: String, owner: String? = nil,
        in container: ContainerIdentifier, environment: Environment, database: DatabaseScope, user: String?, as actor: OperatorIdentity
    ) throws -> UploadedAssetView {
        let (handle, _) = try recordsDatabase(container, environment, database, user, actor, zoneID: Self.zoneID(zone, owner: owner))
        let tickets = try handle.assetUploadTickets([AssetUploadRequest(recordName: recordName, recordType: recordType, fieldName: field)])
        guard let ticket = tickets.first else { throw CloudStoreError.internalError("No upload ticket was made") }
        return UploadedAssetView(try store.uploadAsset(ticket: ticket.ticket, content: content, by: actor))
    }

    /// Fetches records by name with a CloudKit `records/lookup` body (`records`, `zoneID`, `desiredKeys`).
    public func lookupRecords(
        _ body: JSONValue, in container: ContainerIdentifier, environment: Environment, database: DatabaseScope, user: String?,
        as actor: OperatorIdentity
    ) throws -> JSONValue {
        let (handle, _) = try recordsDatabase(container, environment, database, user, actor, zoneID: body["zoneID"])
        return try RecordsExchange.lookup(.body(body), in: handle, numbersAsStrings: false)
    }

    /// Creates, updates and deletes records with a CloudKit `records/modify` body (`operations`,
    /// `zoneID`, `atomic`). An update carrying a stale `recordChangeTag` fails with CONFLICT and
    /// the server's record, as in CloudKit.
    public func modifyRecords(
        _ body: JSONValue, in container: ContainerIdentifier, environment: Environment, database: DatabaseScope, user: String?,
        as actor: OperatorIdentity
    ) throws -> RecordsModification {
        let (handle, schema) = try recordsDatabase(container, environment, database, user, actor, zoneID: body["zoneID"])
        let request = try RecordsExchange.modifyRequest(.body(body), in: handle, schema: schema)
        let results = try handle.modify(request)
        let answer = RecordsExchange.answer(to: request, results, in: handle, numbersAsStrings: false)
        return RecordsModification(results: results, json: answer)
    }

    /// Every record a query matches, page after page, up to ``RecordExport/maximumRecords``, as
    /// JSON or CSV. A query without filters or sort exports the type's records in record-name
    /// order, read without an index.
    public func exportRecords(
        _ body: JSONValue, format: RecordExport.Format, in container: ContainerIdentifier, environment: Environment,
        database: DatabaseScope, user: String?,
        as actor: OperatorIdentity
    ) throws -> RecordExport {
        let (handle, schema) = try recordsDatabase(container, environment, database, user, actor, zoneID: body["zoneID"])
        var request = body.objectValue ?? JSONObject()
        request["continuationMarker"] = nil
        request["resultsLimit"] = .integer(Int64(QueryRequest.maximumResults))
        let recordType = body["query"]?["recordType"]?.stringValue ?? ""
        // A query with no filter and no sort is every record of the type: read by name from the
        // store, as the records page browses them, so that a type without indexes exports too.
        let browses = (body["query"]?["filterBy"]?.arrayValue ?? []).isEmpty && (body["query"]?["sortBy"]?.arrayValue ?? []).isEmpty
        let zone = body["zoneID"]?["zoneName"]?.stringValue ?? ZoneID.defaultZoneName
        let owner = body["zoneID"]?["ownerRecordName"]?.stringValue
        var records: [JSONValue] = []
        var truncated = false
        while true {
            let page =
                browses
                ? try browseRecords(
                    zone: zone, owner: owner, recordType: recordType, after: request["continuationMarker"]?.stringValue,
                    limit: CloudDatabase.maximumListing, in: container, environment: environment, database: database, user: user, as: actor)
                : try RecordsExchange.query(.body(.object(request)), in: handle, schema: schema, numbersAsStrings: false)
            records += page["records"]?.arrayValue ?? []
            guard let marker = page["continuationMarker"]?.stringValue else { break }
            if records.count >= RecordExport.maximumRecords {
                truncated = true
                break
            }
            request["continuationMarker"] = .string(marker)
        }
        let fieldNames = schema.recordType(recordType)?.userFields.map(\.name) ?? []
        return RecordExport(format: format, records: records, fieldNames: fieldNames, truncated: truncated)
    }

    /// The database a records request names, and its environment's schema. In the shared
    /// database, the owner `zoneID` names says whose zone it reaches, as for CloudKit's clients.
    private func recordsDatabase(
        _ container: ContainerIdentifier, _ environment: Environment, _ database: DatabaseScope, _ user: String?, _ actor: OperatorIdentity,
        zoneID: JSONValue?
    ) throws -> (CloudDatabase, Schema) {
        let (identifier, environment, target) = try databaseID(container, environment, database, user)
        var handle = try store.database(identifier, environment, database: target, as: actor.caller)
        // Assets come with download URLs on this server, relative to it, that end with the
        // operator's session or token.
        handle.assetBaseURL = ""
        handle.assetCredential = actor.assetCredential
        // Each record it changes joins the audit trail, in the change's transaction.
        handle.auditActor = actor
        handle.auditPlace = "\(database)\(user.map { " of \($0)" } ?? "")"
        return (handle.reaching(owner: try ZoneWire.owner(WireValue(zoneID, path: "zoneID"))), try store.schema(identifier, environment))
    }
}
