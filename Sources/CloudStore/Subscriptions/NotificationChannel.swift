/// How the web courier hands a notification to a device: a long poll or an event stream.
public enum NotificationChannel: Int64, Hashable, Sendable, CaseIterable {
    /// `GET /webcourier/1/aps`: one notification per poll.
    case longPoll = 1
    /// `GET /webcourier/1/events`: a server-sent-events stream.
    case eventStream = 2

    /// `long poll` or `event stream`.
    public var name: String {
        switch self {
        case .longPoll: "long poll"
        case .eventStream: "event stream"
        }
    }
}
