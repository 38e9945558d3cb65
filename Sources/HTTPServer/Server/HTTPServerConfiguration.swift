import Glibc

/// Settings of an `HTTPServer`, with the defaults Cumulus ships.
public struct HTTPServerConfiguration: Sendable {
    /// The address to bind, an IPv4 or IPv6 literal or `localhost`.
    public var host = "127.0.0.1"
    /// The port to bind; 0 picks a free one (read it back from `HTTPServer.start()`).
    public var port = 8080
    /// How many event-loop threads (each with its own listening socket and epoll set).
    public var eventLoopCount = HTTPServerConfiguration.coreCount
    /// How many worker threads run handlers.
    public var workerCount = max(4, 4 * HTTPServerConfiguration.coreCount)
    /// How many workers new requests wake at most; more are woken only when those stop taking
    /// requests (blocked for a millisecond while requests wait). One per processor by default:
    /// on a loaded server the workers awake then take request after request without sleeping.
    public var awakeWorkerLimit = HTTPServerConfiguration.coreCount
    /// How many requests may wait for a worker before new ones get 503.
    public var workerQueueCapacity = 10_000
    /// The largest request line plus header section; larger requests get 431.
    public var maxHeaderBytes = 16 * 1024
    /// The largest request body; larger ones get 413. Routes may override it (the JSON API
    /// allows a few MiB; uploads more).
    public var maxBodyBytes = 1024 * 1024
    /// Time allowed from a connection's first byte of a request (or its opening) to the end of
    /// the request head.
    public var headerReadTimeout: Duration = .seconds(10)
    /// Time allowed for a request body, from the end of its head: a body must arrive within it,
    /// plus one second for every ``minimumBodyBytesPerSecond`` received, so a large upload at a
    /// fair rate finishes while a client trickling bytes is cut off (408).
    public var bodyReadTimeout: Duration = .seconds(30)
    /// The slowest rate a long body may arrive at without running out of time.
    public var minimumBodyBytesPerSecond = 16 * 1024
    /// Time an idle keep-alive connection stays open between requests.
    public var idleTimeout: Duration = .seconds(60)
    /// Time allowed for a client to accept more response bytes before the connection is dropped.
    public var writeTimeout: Duration = .seconds(30)
    /// The most connections open at once; further ones get a 503 and are closed.
    public var maxConnections = 10_000
    /// The most connections open at once from one client address; further ones get a 503 and
    /// are closed, so one client cannot take every connection. Trusted proxies are not held to
    /// it (``trustedProxies``).
    public var maxConnectionsPerClient = 256
    /// The proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` name the client (none by
    /// default): see ``TrustedProxies``.
    public var trustedProxies = TrustedProxies()
    /// The listen(2) backlog.
    public var listenBacklog = 4096
    /// Bodies smaller than this are never compressed.
    public var gzipMinimumBytes = 1024
    /// The zlib level used for gzip (1 fastest … 9 smallest).
    public var gzipLevel: Int32 = 5
    /// The default heartbeat interval of server-sent-event streams.
    public var eventStreamHeartbeat: Duration = .seconds(15)
    /// The most response bytes queued for one slow client of a stream before it is dropped.
    public var maxQueuedStreamBytes = 8 * 1024 * 1024
    /// How long `shutdown()` lets in-flight requests finish before closing everything.
    public var shutdownGracePeriod: Duration = .seconds(10)
    /// Whether one access-log line is logged (at `info`) per request.
    public var accessLog = true
    /// Query parameters whose values never appear in logs (compared without case): the
    /// credentials CloudKit clients send in URLs, and the usual names of secrets.
    public var redactedQueryParameters: Set<String> = [
        "ckapitoken", "ckwebauthtoken", "cksession", "tok", "token", "access_token", "password", "secret", "key", "signature",
    ]
    /// Path prefixes after which the next segment is a credential (a capability URL such as an
    /// upload ticket) that never appears in logs: `/assets/1/upload/` logs as
    /// `/assets/1/upload/REDACTED`.
    public var redactedPathPrefixes: [String] = []
    /// The header carrying the request id in both directions.
    public var requestIDHeader = "X-Request-Id"
    /// Whether to raise the soft open-files limit to the hard limit at start.
    public var raiseFileDescriptorLimit = true

    /// Creates the default configuration.
    public init() {}

    /// Creates the default configuration listening on `host:port`.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// The number of online processor cores.
    public static var coreCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
}

extension Duration {
    /// The duration in whole nanoseconds (negative durations count as zero).
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}
