/// A subscription a record change is weighed against: whose, and whether it is held in the
/// subscriber's shared database (a participant's, of a zone shared with them).
struct SubscriptionCandidate: Hashable, Sendable {
    /// The subscriber.
    var user: String
    /// The subscription.
    var subscription: Subscription
    /// Whether it is in the subscriber's shared database rather than the changed one.
    var viaShare: Bool
}

/// Whether a record change fires a subscription, and if not the first rule that keeps it from
/// firing, in the order delivery weighs them. Real delivery and the delivery tracer both ask
/// ``NotificationGenerator/match(_:_:_:in:schema:reader:filters:)``.
public enum SubscriptionMatch: Hashable, Sendable {
    /// It fires, with what the notification says.
    case matched(QueuedNotification.Reason)
    /// The query subscription watches another record type (named).
    case otherRecordType(String)
    /// The subscription watches another zone (named).
    case otherZone(String)
    /// The query subscription does not fire on this kind of change; it fires on `firesOn`.
    case firesOnExcludes(Subscription.FiresOn, firesOn: Set<Subscription.FiresOn>)
    /// The subscriber may not read the record: nobody learns of a change by subscribing.
    case subscriberCannotRead
    /// The record does not pass the query's filters.
    case filtersNotMatched
    /// The query no longer runs (the schema lost an index it needs), so it fires no more.
    case queryNoLongerRuns
    /// Every rule but the filters lets it fire; the filters were not weighed (the record is gone).
    case filtersNotWeighed

    /// Whether the subscription fires.
    public var fires: Bool {
        if case .matched = self { return true }
        return false
    }
}
