extension CloudDatabase {
    // MARK: - Subscriptions

    /// The most subscriptions one user may hold in one database.
    public static let maximumSubscriptions = 1_000

    /// The signed-in user whose subscriptions these are: subscriptions notify a user, so the
    /// world and server-to-server keys have none.
    private func subscriber() throws -> String {
        switch caller {
        case .user(let user, _): return user
        case .world: throw CloudStoreError.authenticationRequired("Subscriptions need a signed-in user")
        case .server, .operator: throw CloudStoreError.badRequest("Subscriptions belong to signed-in users; this caller has none")
        }
    }

    /// The caller's subscriptions in this database, as `subscriptions/list` returns them.
    public func subscriptions() throws -> [Subscription] {
        let (user, database) = (try subscriber(), database)
        return try storage.read { try $0.subscriptions(of: user, in: database) }
    }

    /// The caller's subscriptions with these identifiers, as `subscriptions/lookup` returns them.
    public func lookupSubscriptions(_ ids: [String]) throws -> [SubscriptionResult] {
        guard ids.count <= QueryRequest.maximumResults else {
            throw CloudStoreError.badRequest(
                "A lookup may ask for at most \(QueryRequest.maximumResults) subscriptions; this one asks for \(ids.count)")
        }
        let held = Dictionary(try subscriptions().map { ($0.subscriptionID, $0) }, uniquingKeysWith: { first, _ in first })
        return ids.map { id in
            held[id].map { .subscription($0) } ?? .failure(subscriptionID: id, .notFound("Subscription '\(id)' not found"))
        }
    }

    /// Creates, replaces and deletes the caller's subscriptions, as `subscriptions/modify` does:
    /// one result per operation, in order. A create of an identifier the caller holds replaces
    /// it, as saving a subscription again does in CloudKit JS.
    public func modifySubscriptions(_ operations: [SubscriptionOperation]) throws -> [SubscriptionResult] {
        guard operations.count <= ModifyRequest.maximumOperations else {
            throw CloudStoreError.badRequest(
                "A request may hold at most \(ModifyRequest.maximumOperations) operations; this one has \(operations.count)")
        }
        var seen = Set<String>()
        for operation in operations where !seen.insert(operation.subscription.subscriptionID).inserted {
            throw CloudStoreError.badRequest("Subscription '\(operation.subscription.subscriptionID)' appears in more than one operation")
        }
        if viaShare {
            throw CloudStoreError.badRequest(
                "Subscriptions of the shared database cover every owner's zones: send subscriptions/modify without a zoneID")
        }
        let (user, database, policy, now) = (try subscriber(), database, policy, store.now)
        return try storage.write { writer in
            var held = Set(try writer.subscriptions(of: user, in: database).map(\.subscriptionID))
            let access = TransactionAccess(policy: policy, reader: writer)
            return try operations.map { operation -> SubscriptionResult in
                let id = operation.subscription.subscriptionID
                do {
                    switch operation.kind {
                    case .delete:
                        guard try writer.deleteSubscription(id, of: user, in: database) else {
                            throw CloudStoreError.notFound("Subscription '\(id)' not found")
                        }
                        held.remove(id)
                        return .deleted(subscriptionID: id)
                    case .create, .update:
                        if operation.kind == .update, !held.contains(id) {
                            throw CloudStoreError.notFound("Subscription '\(id)' not found")
                        }
                        if !held.contains(id), held.count >= Self.maximumSubscriptions {
                            throw CloudStoreError.quotaExceeded(
                                "A user may hold at most \(Self.maximumSubscriptions) subscriptions in a database")
                        }
                        try validate(operation.subscription, database: database, reader: writer, access: access)
                        try writer.saveSubscription(operation.subscription, of: user, in: database, at: now)
                        held.insert(id)
                        return .subscription(operation.subscription)
                    }
                } catch let error as CloudStoreError where error.isPerItem {
                    return .failure(subscriptionID: id, error)
                }
            }
        }
    }

    /// Refuses a subscription that could never fire or would tell its user what they may not read.
    private func validate(
        _ subscription: Subscription, database: DatabaseID, reader: any EnvironmentReader, access: TransactionAccess
    ) throws {
        guard RecordModifier.isValidRecordName(subscription.subscriptionID) else {
            throw CloudStoreError.badRequest(
                "Invalid subscriptionID '\(subscription.subscriptionID)': 1 to 255 bytes, no control characters")
        }
        func requireZone(_ name: String) throws {
            guard name != ZoneID.defaultZoneName else { return }
            // The shared database's zones are those shared with its user.
            let exists =
                database.scope == .shared
                ? try reader.zonesShared(with: database.owner).contains { $0.zoneID.zoneName == name }
                : try reader.zone(named: name, in: database) != nil
            guard !exists else { return }
            throw CloudStoreError.zoneNotFound(ZoneID(zoneName: name, ownerRecordName: database.owner))
        }
        switch subscription.kind {
        case .query(let query, let zoneName, let firesOn, _):
            guard !firesOn.isEmpty else { throw CloudStoreError.badRequest("A query subscription must fire on create, update or delete") }
            if let zoneName { try requireZone(zoneName) }
            let schema = try reader.schema()
            let type = try recordingSchemaGap(of: query, in: schema) {
                guard let type = schema.recordType(query.recordType) else {
                    throw CloudStoreError.badRequest("Did not find record type: \(query.recordType)")
                }
                if !query.filters.isEmpty { _ = try QueryPlanner(schema: schema).plan(query, zones: [], limit: 1) }
                return type
            }
            if case .none = try access.readScope(of: type) {
                access.recordRefusedRead(of: type, zone: zoneName)
                throw CloudStoreError.accessDenied("READ operation not permitted on record type \(query.recordType)")
            }
        case .zone(let zoneName):
            try requireZone(zoneName)
        case .database:
            break
        }
    }
}
