import Dispatch

/// One database of a container's environment as one caller sees it: the records, queries and
/// zones operations of CloudKit Web Services, each one transaction.
public struct CloudDatabase: Sendable {
    let store: CloudStore
    let storage: any EnvironmentStorage
    /// The container.
    public let container: ContainerIdentifier
    /// The environment.
    public let environment: Environment
    /// The database.
    public let database: DatabaseID
    /// Who is asking.
    public let caller: Caller
    /// The server's URL as this caller reaches it, for the `downloadURL` of the assets of the
    /// records it is given; without it records carry no download URL.
    public var assetBaseURL: String?
    /// The credential the caller holds, which the `downloadURL`s made for them last as long as.
    public var assetCredential = AssetCredential.none
    /// The API token or server key the caller's request carried: the change log keeps it with
    /// each change the caller makes, so that an operator sees where a change came from.
    public var credential: RequestLogCredential?
    /// Whether the caller reaches `database`, another user's private database, through the
    /// shares they accepted (their shared database).
    public internal(set) var viaShare = false
    /// Whether an operator acts as the caller, a participant reaching this database through
    /// their shares (the console's "act as user"): the operator's own reads (a listing without
    /// a query, counts) are open to it, bounded by what the shares give the participant.
    var actsForOperator = false
    /// The operator making this handle's changes: each change's audit entries are written in
    /// its transaction. `nil` for CloudKit's clients, whose changes are not audited.
    public var auditActor: OperatorIdentity?
    /// How the request named this database, for the audit trail: `public`, `private of alice`.
    public var auditPlace = ""
    /// One audit entry standing for a whole change instead of one per record: a share's change.
    var auditSummary: (action: String, target: String)?
    /// Blobs a save may hold without an upload's receipt besides those the record holds: a
    /// revert's, whose version in the history holds them.
    var assetsHeldElsewhere: Set<String> = []
    /// Where this handle's access decisions are recorded: a request's, for the request log.
    public var accessTrace: RequestTrace?

    var policy: AccessPolicy { AccessPolicy(caller: caller, database: database, viaShare: viaShare, trace: accessTrace) }

    // MARK: - Records

    /// Applies `request` as `records/modify` does: one result per operation, in order.
    /// - Throws: request-level failures (too many operations, a caller who may not write).
    public func modify(_ request: ModifyRequest) throws -> [RecordResult] {
        let results = try waitForCompletion { modify(request, completion: $0) }
        if auditActor != nil { store.moveAuditOutbox(of: storage) }
        return results
    }

    /// Applies `request` as `records/modify` does, handing its write to the environment's writer
    /// and returning at once, so that no thread waits for the commit: `completion` gets one
    /// result per operation, in order, or the request-level failure, after the commit. It runs
    /// on the writer's thread for a request of a few operations (a hop would cost more than the
    /// answer), on another thread for a larger one, and on this one for a failure found before
    /// writing.
    public func modify(_ request: ModifyRequest, completion: @escaping @Sendable (Result<[RecordResult], any Error>) -> Void) {
        let now = store.now
        let request = Self.namingNewRecords(of: request, at: now)
        var participantUsers = ShareParticipants()
        let storageLimit: Int64?
        do {
            if isSharedDirectory {
                throw CloudStoreError.badRequest(
                    "The shared database holds zones other users shared: name the zone's ownerRecordName in zoneID")
            }
            if request.operations.contains(where: { $0.share?.participants?.isEmpty == false }) {
                participantUsers = try store.shareParticipants(in: container)
            }
            storageLimit = try store.limits(of: container, environment).storageBytes
        } catch {
            return completion(.failure(error))
        }
        let (store, container, environment, database, caller, viaShare) = (store, container, environment, database, caller, viaShare)
        let trace = accessTrace
        let via = credential?.packed
        let receipts = AssetReceiptCheck(place: place, signer: store.assetSigner, now: now, heldElsewhere: assetsHeldElsewhere)
        let audit = recordAudit(request)
        storage.write({ [participantUsers] writer in
            // Made on the writer's thread, which alone uses them.
            let notifier = store.notifier(container, environment, database, at: now)
            var modifier = RecordModifier(
                database: database, caller: caller, evolution: SchemaEvolution(environment: environment, trace: trace), now: now,
                notifier: notifier,
                receipts: receipts)
            modifier.viaShare = viaShare
            modifier.participantUsers = participantUsers
            modifier.via = via
            modifier.trace = trace
            let results = try modifier.apply(request, to: writer)
            try store.checkStorage(of: writer, limit: storageLimit, container: container, environment: environment)
            for note in audit?.notes(request, results) ?? [] { try writer.record(note) }
            return (results, try notifier.flush(to: writer), notifier.queuedCount)
        }) { [self] result in
            // Counted here, once the write has ended: a group's jobs may run twice.
            if case .failure(CloudStoreError.quotaExceeded) = result { store.counters.refused(at: .storage) }
            let answer: @Sendable () -> Void = {
                completion(
                    result.map { results, woken, queuedCount in
                        store.counters.notificationsQueued.wrappingAdd(queuedCount, ordering: .relaxed)
                        store.notificationsQueued(woken)
                        return present(results)
                    })
            }
            // A large answer is made elsewhere, so that the writer goes on to the next group.
            if request.operations.count > Self.operationsAnsweredOnTheWriter {
                DispatchQueue.global().async(execute: answer)
            } else {
                answer()
            }
        }
    }

    /// `request` with its new records named: here rather than on the writer's thread, which
    /// bounds how many writes a second the environment takes.
    private static func namingNewRecords(of request: ModifyRequest, at now: Int64) -> ModifyRequest {
        guard request.operations.count <= ModifyRequest.maximumOperations else { return request }
        var request = request
        for index in request.operations.indices where request.operations[index].recordName == nil {
            request.operations[index].recordName = RecordModifier.name(of: request.operations[index], at: now)
        }
        return request
    }

    /// What `plan` makes of `query`; in production, a refusal for want of a type, field or index
    /// the schema lacks is recorded in the request's trace, for the schema guard.
    func recordingSchemaGap<T>(of query: Query, in schema: Schema, _ plan: () throws -> T) throws -> T {
        do {
            return try plan()
        } catch let error as CloudStoreError {
            if environment == .production, let trace = accessTrace {
                let missing: MissingIndex? = if case .missingIndex(let missing) = error { missing } else { nil }
                if let gap = SchemaGap.of(query, in: schema, missingIndex: missing) { trace.recordSchemaGap(gap) }
            }
            throw error
        }
    }

    /// The most operations of a modify whose answer the writer's thread makes itself.
    static let operationsAnsweredOnTheWriter = 8

    /// Fetches records by name as `records/lookup` does: one result per name, in order.
    public func lookup(_ lookups: [RecordLookup], zoneName: String = ZoneID.defaultZoneName, desiredKeys: [String]? = nil) throws
        -> [RecordResult]
    {
        guard lookups.count <= QueryRequest.maximumResults else {
            throw CloudStoreError.badRequest(
                "A lookup may ask for at most \(QueryRequest.maximumResults) records; this one asks for \(lookups.count)")
        }
        let database = database
        let policy = policy
        let results = present(
            try storage.read { reader in
                let access = TransactionAccess(policy: policy, reader: reader)
                let zone = try access.visibleZone(named: zoneName)
                if zone == nil, zoneName != ZoneID.defaultZoneName || policy.viaShare {
                    let zoneID = ZoneID(zoneName: zoneName, ownerRecordName: database.owner)
                    return lookups.map { .failure(recordName: $0.recordName, error: .zoneNotFound(zoneID)) }
                }
                let schema = try reader.schema()
                return try lookups.map { lookup in
                    guard let zone else { return .failure(recordName: lookup.recordName, error: .notFound("Record not found")) }
                    guard let stored = try reader.record(named: lookup.recordName, in: zone) else {
                        // A share is looked up by its record name too.
                        if let share = try access.shares(in: zone).first(where: { $0.recordName == lookup.recordName }),
                            try access.canRead(Record(share), in: schema)
                        {
                            return .record(Record(share))
                        }
                        return .failure(recordName: lookup.recordName, error: .notFound("Record not found"))
                    }
                    guard try access.canRead(stored.record, in: schema) else {
                        // Through shares, a record not shared with the caller is not there for them.
                        return .failure(
                            recordName: lookup.recordName,
                            error: policy.viaShare ? .notFound("Record not found") : .accessDenied("READ operation not permitted"))
                    }
                    return .record(try access.markingShare(stored.record, in: zone).keeping(lookup.desiredKeys ?? desiredKeys))
                }
            })
        // A lookup asking for no field (a change finding a record's type) reads no content.
        try auditRead(
            of: zip(lookups, results).filter { ($0.0.desiredKeys ?? desiredKeys) != [] }.compactMap { $0.1.record?.recordName },
            zoneName: zoneName)
        return results
    }

    /// Runs a query as `records/query` does: one page of matching records, and a marker for the next.
    public func query(_ request: QueryRequest) throws -> QueryResult {
        let limit = min(max(request.resultsLimit ?? QueryRequest.maximumResults, 1), QueryRequest.maximumResults)
        if let given = request.resultsLimit, given < 1 {
            throw CloudStoreError.badRequest("resultsLimit must be at least 1, not \(given)")
        }
        let database = database
        let signer = store.markerSigner
        let policy = policy
        let maximumPageBytes = store.configuration.maximumQueryPageBytes
        var result = try storage.read { reader in
            let access = TransactionAccess(policy: policy, reader: reader)
            var zones: [StoredZone]
            if let zoneName = request.zoneName {
                if let zone = try access.visibleZone(named: zoneName) {
                    zones = [zone]
                } else if zoneName == ZoneID.defaultZoneName, !policy.viaShare {
                    zones = []
                } else {
                    throw CloudStoreError.zoneNotFound(ZoneID(zoneName: zoneName, ownerRecordName: database.owner))
                }
            } else if policy.viaShare {
                // Through shares a query names its zone: each zone's shares bound it differently.
                throw CloudStoreError.badRequest("A query of the shared database names its zone, with its ownerRecordName, in zoneID")
            } else if request.zoneWide {
                zones = try reader.zones(in: database)
            } else {
                zones = try reader.zone(named: ZoneID.defaultZoneName, in: database).map { [$0] } ?? []
            }

            let schema = try reader.schema()
            var plan = try recordingSchemaGap(of: request.query, in: schema) {
                try QueryPlanner(schema: schema).plan(request.query, zones: zones, limit: limit + 1)
            }
            // Records the caller may not read are left out by the query itself, so they are
            // neither returned nor counted against the page.
            guard let type = schema.recordType(plan.recordType) else {
                throw CloudStoreError.badRequest("Did not find record type: \(plan.recordType)")
            }
            if policy.viaShare, let zone = zones.first {
                // Only the hierarchies shared with the caller, unless the whole zone is.
                let scope = try access.shareScope(in: zone)
                if scope.wholeZone == .none { plan.withinTrees = scope.trees.keys.sorted() }
            }
            switch try access.readScope(of: type) {
            case .all: break
            case .createdBy(let user): plan.createdBy = user
            case .none:
                access.recordRefusedRead(of: type, zone: request.zoneName)
                throw CloudStoreError.accessDenied("READ operation not permitted on record type \(plan.recordType)")
            }
            if let marker = request.continuationMarker {
                plan.after = try ContinuationMarker.decode(marker, for: plan, incarnation: { try reader.incarnation() }, with: signer)
            }
            let rows = try reader.query(plan)
            // A page ends at `limit` records or at the byte bound, whichever comes first.
            var records: [Record] = []
            records.reserveCapacity(min(rows.count, limit))
            var bytes = 0
            var taken = 0
            // Only a private database's zones have shares whose roots a record could be.
            let zoneByID =
                database.scope == .private
                ? Dictionary(zones.map { ($0.zoneID, $0) }, uniquingKeysWith: { first, _ in first }) : [:]
            for row in rows.prefix(limit) {
                var record = row.stored.record.keeping(request.desiredKeys)
                if !zoneByID.isEmpty, let zone = zoneByID[record.zoneID] { record = try access.markingShare(record, in: zone) }
                let size = RecordSize.of(record)
                if taken > 0, bytes + size > maximumPageBytes { break }
                records.append(record)
                bytes += size
                taken += 1
            }
            let page = rows.prefix(taken)
            var marker: String?
            if rows.count > taken, let last = page.last {
                marker = ContinuationMarker(
                    fingerprint: ContinuationMarker.fingerprint(of: plan), incarnation: try reader.incarnation(),
                    position: QueryPlan.Position(sortValues: last.sortValues, key: last.stored.key)
                ).encoded(with: signer)
            }
            return QueryResult(records: records, continuationMarker: marker)
        }
        result.records = present(result.records)
        try auditRead(
            of: result.records.map(\.recordName), zoneName: request.zoneName ?? (request.zoneWide ? "every zone" : ZoneID.defaultZoneName))
        return result
    }

    // MARK: - Zones

    /// Every zone of the database, the default zone first, as `zones/list` returns them.
    public func zones() throws -> [Zone] {
        if isSharedDirectory { return try sharedZones() }
        let database = database
        let signer = store.syncTokenSigner
        let policy = policy
        return try storage.read { reader in
            let incarnation = try reader.incarnation()
            var stored = try reader.zones(in: database)
            if policy.viaShare {
                let access = TransactionAccess(policy: policy, reader: reader)
                stored = try stored.filter { !(try access.shareScope(in: $0).isEmpty) }
                return try stored.map { try Self.describe($0, $0.zoneID, reader, incarnation, signer) }
            }
            var zones = [
                try Self.describe(stored.first { $0.zoneID.isDefaultZone }, ZoneID.defaultZone(of: database), reader, incarnation, signer)
            ]
            for zone in stored where !zone.zoneID.isDefaultZone {
                zones.append(try Self.describe(zone, zone.zoneID, reader, incarnation, signer))
            }
            return zones
        }
    }

    /// Looks zones up by name, as `zones/lookup` does.
    public func lookupZones(_ names: [String]) throws -> [ZoneResult] {
        if isSharedDirectory {
            // Without an owner, the first zone of that name shared with the caller.
            let shared = try sharedZones()
            let user = self.database.owner
            return names.map { name in
                let zoneID = ZoneID(zoneName: name, ownerRecordName: user)
                return shared.first { $0.zoneID.zoneName == name }.map { .zone($0) } ?? .failure(zoneID, .zoneNotFound(zoneID))
            }
        }
        let database = database
        let signer = store.syncTokenSigner
        let policy = policy
        return try storage.read { reader in
            let incarnation = try reader.incarnation()
            let access = TransactionAccess(policy: policy, reader: reader)
            return try names.map { name in
                let zoneID = ZoneID(zoneName: name, ownerRecordName: database.owner)
                let stored = try access.visibleZone(named: name)
                guard stored != nil || (zoneID.isDefaultZone && !policy.viaShare) else { return .failure(zoneID, .zoneNotFound(zoneID)) }
                return .zone(try Self.describe(stored, zoneID, reader, incarnation, signer))
            }
        }
    }

    /// Creates and deletes zones, as `zones/modify` does: one result per operation, in order.
    /// Custom zones exist in private databases only; the default zone can be neither created nor deleted.
    public func modifyZones(_ operations: [ZoneOperation]) throws -> [ZoneResult] {
        guard operations.count <= ModifyRequest.maximumOperations else {
            throw CloudStoreError.badRequest(
                "A request may hold at most \(ModifyRequest.maximumOperations) operations; this one has \(operations.count)")
        }
        try policy.checkCanModifyZones()
        var seen = Set<String>()
        for operation in operations where !seen.insert(operation.zoneName).inserted {
            throw CloudStoreError.badRequest("Zone '\(operation.zoneName)' appears in more than one operation")
        }
        let database = database
        let signer = store.syncTokenSigner
        let now = store.now
        let notifier = store.notifier(container, environment, database)
        let audit = recordAudit(nil)
        let deleter = VersionReplacement(
            kind: .zoneDeleted, time: now, modifier: caller.userRecordName ?? Caller.operatorRecordName, via: credential?.packed)
        let (results, woken) = try storage.write { writer in
            let incarnation = try writer.incarnation()
            let results = try operations.map { operation -> ZoneResult in
                let zoneID = ZoneID(zoneName: operation.zoneName, ownerRecordName: database.owner)
                do {
                    return try writer.savepoint {
                        try Self.apply(operation, zoneID, writer, database, now, incarnation, signer, deleter: deleter)
                    }
                } catch let error as CloudStoreError where error.isPerItem {
                    return .failure(zoneID, error)
                }
            }
            if results.contains(where: { if case .failure = $0 { false } else { true } }) { try notifier.zoneChanged(reader: writer) }
            for note in audit?.notes(results) ?? [] { try writer.record(note) }
            return (results, try notifier.flush(to: writer))
        }
        if audit != nil { store.moveAuditOutbox(of: storage) }
        store.counters.notificationsQueued.wrappingAdd(notifier.queuedCount, ordering: .relaxed)
        store.notificationsQueued(woken)
        return results
    }

    private static func apply(
        _ operation: ZoneOperation, _ zoneID: ZoneID, _ writer: any EnvironmentWriter, _ database: DatabaseID, _ now: Int64,
        _ incarnation: String, _ signer: OpaqueTokenSigner, deleter: VersionReplacement
    ) throws -> ZoneResult {
        if zoneID.isDefaultZone {
            throw CloudStoreError.badRequest("The default zone cannot be \(operation.kind == .create ? "created" : "deleted")")
        }
        let existing = try writer.zone(named: zoneID.zoneName, in: database)
        switch operation.kind {
        case .create:
            guard RecordModifier.isValidRecordName(zoneID.zoneName), !zoneID.zoneName.hasPrefix("_") else {
                throw CloudStoreError.badRequest(
                    "Invalid zone name '\(zoneID.zoneName)': 1 to 255 bytes, no control characters, not starting with '_'")
            }
            guard existing == nil else { throw CloudStoreError.exists("Zone '\(zoneID.zoneName)' already exists") }
            let zone = try writer.createZone(named: zoneID.zoneName, in: database, created: now)
            return .zone(try describe(zone, zoneID, writer, incarnation, signer))
        case .delete:
            guard let existing else { throw CloudStoreError.zoneNotFound(zoneID) }
            // Its records and itself go to the trash, whence they can be restored.
            try writer.keepZone(existing, replacedBy: deleter)
            try writer.deleteZone(existing, at: now)
            return .deleted(zoneID)
        }
    }

    /// A zone's description; a default zone not created yet has an empty change log.
    static func describe(
        _ stored: StoredZone?, _ zoneID: ZoneID, _ reader: any EnvironmentReader, _ incarnation: String, _ signer: OpaqueTokenSigner
    ) throws -> Zone {
        let sequence = try stored.map { try reader.lastChangeSequence(in: $0) } ?? 0
        let token = SyncToken(incarnation: incarnation, zoneKey: stored?.key ?? 0, sequence: sequence)
        return Zone(zoneID: zoneID, syncToken: token.encoded(with: signer), atomic: !zoneID.isDefaultZone)
    }
}

/// One record of a `records/lookup` request.
public struct RecordLookup: Hashable, Sendable {
    /// The record's name.
    public var recordName: String
    /// Fields to return for this record; `nil` uses the request's.
    public var desiredKeys: [String]?

    /// Creates a lookup.
    public init(_ recordName: String, desiredKeys: [String]? = nil) {
        self.recordName = recordName
        self.desiredKeys = desiredKeys
    }
}
