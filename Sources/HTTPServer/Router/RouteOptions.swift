/// Per-route settings.
public struct RouteOptions: Sendable {
    /// The largest body this route accepts, overriding the server's `maxBodyBytes` (for asset
    /// uploads); `nil` keeps the server's limit.
    public var maxBodyBytes: Int?
    /// Whether the handler may run on the event loop instead of the worker pool. Only for
    /// handlers that never block and finish in microseconds (health checks, redirects): saves two
    /// thread hops per request.
    public var runsOnEventLoop: Bool
    /// Runs the handler on the event loop when the request's body has at most this many bytes,
    /// and on the worker pool when it has more. For handlers that hand their real work to
    /// another thread (a write to the writer) and block only on a rare cache miss, but whose own
    /// work grows with the body: a small request saves two thread hops, a large one holds up no
    /// other connection of its loop.
    public var eventLoopBodyLimit: Int?
    /// What the server's ``HTTPMetrics`` count this route's requests as; `nil` counts them
    /// with every other unnamed route's, as ``RouteOperation/other``.
    public var operation: RouteOperation?

    /// Creates options.
    public init(maxBodyBytes: Int? = nil, runsOnEventLoop: Bool = false, eventLoopBodyLimit: Int? = nil, operation: RouteOperation? = nil) {
        self.maxBodyBytes = maxBodyBytes
        self.runsOnEventLoop = runsOnEventLoop
        self.eventLoopBodyLimit = eventLoopBodyLimit
        self.operation = operation
    }

    /// The server's limits, handler on the worker pool.
    public static let `default` = RouteOptions()
    /// The server's limits, handler on the event loop.
    public static let onEventLoop = RouteOptions(runsOnEventLoop: true)
}
