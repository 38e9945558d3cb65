/// Per-route settings.
public struct RouteOptions: Sendable {
    /// The largest body this route accepts, overriding the server's `maxBodyBytes` (for asset
    /// uploads); `nil` keeps the server's limit.
    public var maxBodyBytes: Int?
    /// Whether the handler may run on the event loop instead of the worker pool. Only for
    /// handlers that never block and finish in microseconds (health checks, redirects): saves two
    /// thread hops per request.
    public var runsOnEventLoop: Bool

    /// Creates options.
    public init(maxBodyBytes: Int? = nil, runsOnEventLoop: Bool = false) {
        self.maxBodyBytes = maxBodyBytes
        self.runsOnEventLoop = runsOnEventLoop
    }

    /// The server's limits, handler on the worker pool.
    public static let `default` = RouteOptions()
    /// The server's limits, handler on the event loop.
    public static let onEventLoop = RouteOptions(runsOnEventLoop: true)
}
