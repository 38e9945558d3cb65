/// What the web courier holds and has handed out, for a metrics endpoint: read with
/// ``WebServices/courierMetrics``.
public struct CourierMetrics: Sendable {
    /// Long polls waiting for a notification now.
    public var pollsWaiting: Int
    /// Event streams open now.
    public var streamsOpen: Int
    /// Notifications handed to a poll or a stream so far.
    public var delivered: Int
}
