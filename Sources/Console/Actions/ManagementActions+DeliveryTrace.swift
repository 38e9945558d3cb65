import CloudKitWire
import CloudStore

extension ManagementActions {
    // MARK: - The delivery tracer

    /// Traces a record's latest committed change to the subscriptions it was weighed against:
    /// which fired and which did not and why (record type, zone, what they fire on, the
    /// subscriber's permission, the query's filters, weighed by delivery's own rules), and for
    /// each that fired what became of its notification for each push token of its subscriber.
    /// Reads subscription and delivery metadata only, so it is not audited.
    /// - Parameters:
    ///   - database: `public`, `private` or `shared`; `user` names a private or shared database's
    ///     user, and `zoneOwner` the owner of a zone of the shared database.
    ///   - subscriptionID: only the subscriptions with this identifier.
    public func traceDelivery(
        record recordName: String, zone: String = ZoneID.defaultZoneName, in container: ContainerIdentifier, environment: Environment,
        database: DatabaseScope, user: String? = nil, zoneOwner: String? = nil, subscriptionID: String? = nil, as actor: OperatorIdentity
    ) throws -> DeliveryTraceView {
        let (identifier, environment, target) = try databaseID(container, environment, database, user)
        let holder = try sharedZoneHolder(zone, owner: zoneOwner, identifier, environment, target, actor) ?? target
        let trace = try store.traceDelivery(
            identifier, environment, database: holder, zoneName: zone, recordName: recordName,
            subscriptionID: subscriptionID?.isEmpty == true ? nil : subscriptionID, as: actor)
        let names = try userNames(identifier)
        let change = trace.change
        return DeliveryTraceView(
            change: DeliveryTraceView.Change(
                database: change.database.scope.rawValue, owner: change.database.owner, zoneName: change.zoneName,
                recordName: change.recordName, recordType: change.recordType, sequence: change.sequence, kind: change.kind.rawValue,
                time: change.time, modifiedBy: change.modifier, recordKnown: change.recordKnown),
            subscriptions: trace.subscriptions.map { traced in
                DeliveryTraceView.Subscription(
                    entry: SubscriptionsView.Entry(
                        database: traced.database.scope.rawValue, owner: traced.database.owner, userRecordName: traced.userRecordName,
                        subscription: SubscriptionWire.json(traced.subscription, owner: traced.database.owner).objectValue ?? [:]),
                    userName: names[traced.userRecordName], matched: traced.match.fires, rule: Self.rule(traced.match),
                    fate: traced.fate.rawValue, why: traced.why, access: traced.access.map(AccessDecisionView.init),
                    notifications: traced.notifications.map { notification in
                        DeliveryTraceView.Notification(
                            subject: notification.subject, created: notification.created, expires: notification.expires,
                            removed: notification.removed,
                            deliveries: notification.deliveries.map {
                                DeliveryTraceView.Delivery(
                                    tokenID: $0.tokenID, held: $0.held, fate: $0.fate.rawValue, channel: $0.channel?.name, time: $0.time)
                            })
                    })
            })
    }

    /// The rule a match names, as the tracer's answer does.
    private static func rule(_ match: SubscriptionMatch) -> String {
        switch match {
        case .matched: "matched"
        case .otherRecordType: "recordType"
        case .otherZone: "zone"
        case .firesOnExcludes: "firesOn"
        case .subscriberCannotRead: "permission"
        case .filtersNotMatched: "filters"
        case .queryNoLongerRuns: "queryNoLongerRuns"
        case .filtersNotWeighed: "filtersNotWeighed"
        }
    }
}
