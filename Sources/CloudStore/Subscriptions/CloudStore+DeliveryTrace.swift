extension CloudStore {
    // MARK: - The delivery tracer (operators)

    /// Traces the latest committed change of a record: every subscription of its database (and
    /// the participants' of a shared zone) weighed against it by the rules delivery weighs
    /// (``NotificationGenerator/match(_:_:_:in:schema:reader:filters:)``, the same code), with
    /// the first rule that kept each from firing (a subscriber who may not read the record with
    /// the access policy's explanation), and for each that fired what it queued and what became
    /// of it for each push token: fetched by a long poll or an event stream, waiting, expired, or
    /// never the token's. Rules are weighed against the subscriptions, schema and permissions
    /// as they are now, the notifications as they were queued.
    /// - Parameters:
    ///   - subscriptionID: only the subscriptions with this identifier.
    ///   - actor: the operator asking; who may not read the container's app users is refused.
    /// - Throws: ``CloudStoreError/accessDenied(_:)`` for an operator without access to the
    ///   container; ``CloudStoreError/zoneNotFound(_:)``; ``CloudStoreError/notFound(_:)`` for a
    ///   record whose zone's change log holds no change of it.
    public func traceDelivery(
        _ container: ContainerIdentifier, _ environment: Environment, database: DatabaseID, zoneName: String, recordName: String,
        subscriptionID: String? = nil, as actor: OperatorIdentity
    ) throws -> DeliveryTrace {
        try authorize(
            actor, .reads(.appUsers), on: OperatorTarget(container: container, environment: environment, database: database.scope))
        try requireContainer(container)
        let time = now
        let tokens = Dictionary(grouping: try pushTokens(container, environment), by: { $0.userRecordName ?? "" })
        let generatorTime = { (change: Int64) in self.notifier(container, environment, database, at: change) }
        return try self.environment(container, environment).read { reader in
            let zoneID = ZoneID(zoneName: zoneName, ownerRecordName: database.owner)
            guard let zone = try reader.zone(named: zoneName, in: database) else { throw CloudStoreError.zoneNotFound(zoneID) }
            guard let entry = try Self.latestChange(of: recordName, in: zone, reader: reader) else {
                throw CloudStoreError.notFound("The change log of zone \(zoneName) holds no change of record \(recordName)")
            }
            let kind: Subscription.FiresOn =
                switch entry.kind {
                case .created: .create
                case .updated: .update
                case .deleted: .delete
                }
            let stored = try Self.tracedRecord(entry, kind, in: zone, database: database, reader: reader)
            let change = TracedChange(
                database: database, zoneName: zoneName, recordName: recordName, recordType: entry.recordType, sequence: entry.sequence,
                kind: kind, time: entry.time, modifier: entry.modifier, recordKnown: stored.known)
            let generator = generatorTime(entry.time)
            let schema = try reader.schema()
            var trails: [String: [NotificationTrail]] = [:]
            var traced: [TracedSubscription] = []
            for candidate in try generator.candidates(in: zone, reader: reader) {
                let subscription = candidate.subscription
                guard subscriptionID.map({ $0 == subscription.subscriptionID }) ?? true else { continue }
                let user = candidate.user
                let match = try generator.match(
                    candidate, stored.record, kind, in: zone, schema: schema, reader: reader, filters: stored.known)
                var access: AccessExplanation?
                if match == .subscriberCannotRead, database.scope == .public, let type = schema.recordType(entry.recordType) {
                    access = try AccessPolicy(caller: .user(user), database: .public).explain(
                        .read, on: type, creator: stored.record.record.created.userRecordName, recordName: recordName,
                        zone: zone.zoneID.zoneName
                    ) { try reader.roles(of: user) }
                }
                if trails[user] == nil { trails[user] = try reader.notificationTrails(of: user, createdAt: entry.time) }
                let queued = Self.trails(of: subscription, for: recordName, among: trails[user] ?? [])
                let notifications = queued.map { Self.traced($0, tokens: tokens[user] ?? [], now: time) }
                let (fate, why) = Self.fate(of: match, notifications, recordName: recordName, viaShare: candidate.viaShare)
                traced.append(
                    TracedSubscription(
                        database: candidate.viaShare ? .shared(user) : database, userRecordName: user, subscription: subscription,
                        match: match, access: access, fate: fate, why: why, notifications: notifications))
            }
            return DeliveryTrace(change: change, subscriptions: traced)
        }
    }

    /// The latest entry of `zone`'s change log for `recordName`: the newest of the records whose
    /// names begin with it, page by page (by the log's name index), until one is its own.
    private static func latestChange(of recordName: String, in zone: StoredZone, reader: any EnvironmentReader) throws -> ChangeEntry? {
        var filter = ChangeLogFilter(namePrefix: recordName, newestFirst: true, byName: true)
        while true {
            let page = try reader.changes(in: zone, matching: filter, limit: 256)
            if let entry = page.first(where: { $0.recordName == recordName }) { return entry }
            guard page.count == 256, let oldest = page.last else { return nil }
            filter.before = oldest.sequence
        }
    }

    /// The notifications the change's transaction queued for `subscription` that concern the
    /// change of `recordName`: its own, or for a zone or database subscription, which fires once
    /// per transaction, the one queued for the transaction's first change.
    private static func trails(of subscription: Subscription, for recordName: String, among trails: [NotificationTrail])
        -> [NotificationTrail]
    {
        let all = trails.filter { $0.subscriptionID == subscription.subscriptionID }
        let own = all.filter { $0.subject == recordName }
        if case .query = subscription.kind { return own }
        return own.isEmpty ? Array(all.prefix(1)) : own
    }

    /// The record as the change left it, or for a deletion as it was (its last version in the
    /// history; without one, its type and creator alone, `known` false).
    private static func tracedRecord(
        _ entry: ChangeEntry, _ kind: Subscription.FiresOn, in zone: StoredZone, database: DatabaseID, reader: any EnvironmentReader
    ) throws -> (record: StoredRecord, known: Bool) {
        if kind != .delete, let stored = try reader.record(named: entry.recordName, in: zone) { return (stored, true) }
        let filter = VersionFilter(
            database: database, zoneName: zone.zoneID.zoneName, recordNames: [entry.recordName], replacements: [.deleted, .zoneDeleted])
        if let version = try reader.versions(matching: filter, limit: 1).first {
            // No longer stored: its fields cannot be run through the query engine.
            return (StoredRecord(key: -1, record: version.record, size: version.size), false)
        }
        let stamp = RecordStamp(timestamp: entry.time, userRecordName: entry.creator, deviceID: "")
        let record = Record(
            recordName: entry.recordName, recordType: entry.recordType, zoneID: zone.zoneID, changeTag: "", created: stamp, modified: stamp)
        return (StoredRecord(key: -1, record: record, size: 0), false)
    }

    /// A queued notification's trail, token by token: the subscriber's tokens now, and any
    /// token no longer held that took it.
    private static func traced(_ trail: NotificationTrail, tokens: [PushToken], now: Int64) -> TracedNotification {
        let handed = Dictionary(trail.handovers.map { ($0.token, $0) }, uniquingKeysWith: { first, _ in first })
        let gone = trail.removed != nil || trail.expires <= now
        var deliveries = tokens.map { token -> TracedDelivery in
            if let handover = handed[token.token] {
                return TracedDelivery(tokenID: token.id, held: true, fate: .fetched, channel: handover.channel, time: handover.time)
            }
            // A token's queue holds what was queued for its user from its binding on.
            if (token.bound ?? token.created) > trail.created {
                return TracedDelivery(tokenID: token.id, held: true, fate: .notForThisToken)
            }
            return TracedDelivery(tokenID: token.id, held: true, fate: gone ? .expired : .waiting)
        }
        let held = Set(tokens.map(\.token))
        deliveries += trail.handovers.filter { !held.contains($0.token) }.map {
            TracedDelivery(tokenID: PushToken.id(of: $0.token), held: false, fate: .fetched, channel: $0.channel, time: $0.time)
        }
        return TracedNotification(
            subject: trail.subject, created: trail.created, expires: trail.expires, removed: trail.removed, deliveries: deliveries)
    }

    /// What became of the change for a subscription, and why, in words.
    private static func fate(
        of match: SubscriptionMatch, _ notifications: [TracedNotification], recordName: String, viaShare: Bool
    ) -> (TracedSubscription.Fate, String) {
        guard let notification = notifications.first else {
            guard match.fires || match == .filtersNotWeighed else { return (.notMatched, "Not notified: " + match.why) }
            if match == .filtersNotWeighed {
                return (
                    .notMatched,
                    "Not notified: nothing was queued, and every rule but the filters lets it fire, so its filters left the deleted "
                        + "record out (or its subscriber held no push token)"
                )
            }
            return (.skipped, "Nothing queued: the subscriber held no push token when the change committed")
        }
        if let subject = notification.subject, subject != recordName {
            return (
                .coalesced,
                "Coalesced: it fires once per transaction, and its notification was queued for the change of \(subject) in the same one"
            )
        }
        let fetched = notification.deliveries.filter { $0.fate == .fetched }
        if !fetched.isEmpty {
            let how = Set(fetched.compactMap { $0.channel?.name }).sorted().joined(separator: " and ")
            return (.delivered, "Delivered: fetched by \(fetched.count) push token(s)" + (how.isEmpty ? "" : " through \(how)"))
        }
        if notification.removed != nil || notification.deliveries.contains(where: { $0.fate == .expired }) {
            return (.expired, "Expired: no push token of the subscriber fetched it before it expired")
        }
        return (.queued, "Queued: waiting for the subscriber's push tokens to fetch it" + (viaShare ? " (through a share)" : ""))
    }
}
