/// One API call as the request log keeps it.
public struct RequestLogEntry: Hashable, Sendable {
    /// The entry's place in the log: later entries have larger ids. 0 until stored.
    public var id: Int64 = 0
    /// When the request arrived, in milliseconds since 1970.
    public var time: Int64
    /// The container named in the path.
    public var container: String
    /// `development` or `production`.
    public var environment: String
    /// `public`, `private` or `shared`; empty for paths without a database.
    public var database: String
    /// What was asked: `records/query`, `zones/list`…
    public var operation: String
    /// The signed-in user's record name; `nil` for the world.
    public var user: String?
    /// The client's address.
    public var clientAddress: String
    /// The HTTP status answered.
    public var status: Int
    /// CloudKit's `serverErrorCode` of an error answer.
    public var serverErrorCode: String?
    /// How long the answer took, in microseconds.
    public var durationMicroseconds: Int64
    /// Bytes of the request body.
    public var bytesIn: Int64
    /// Bytes of the response body.
    public var bytesOut: Int64
    /// The request id, as in `X-Apple-Request-UUID`.
    public var requestID: String

    /// Creates an entry.
    public init(
        time: Int64, container: String, environment: String, database: String, operation: String, user: String?, clientAddress: String,
        status: Int, serverErrorCode: String?, durationMicroseconds: Int64, bytesIn: Int64, bytesOut: Int64, requestID: String
    ) {
        self.time = time
        self.container = container
        self.environment = environment
        self.database = database
        self.operation = operation
        self.user = user
        self.clientAddress = clientAddress
        self.status = status
        self.serverErrorCode = serverErrorCode
        self.durationMicroseconds = durationMicroseconds
        self.bytesIn = bytesIn
        self.bytesOut = bytesOut
        self.requestID = requestID
    }
}

/// Which request log entries to read: each given criterion must hold; newest first.
public struct RequestLogFilter: Hashable, Sendable {
    /// Entries of this container.
    public var container: String?
    /// In this environment.
    public var environment: String?
    /// In this database.
    public var database: String?
    /// Of this operation.
    public var operation: String?
    /// Of this user (user record name).
    public var user: String?
    /// With this HTTP status.
    public var status: Int?
    /// Errors only: a status of 400 or more.
    public var errorsOnly: Bool
    /// From this time on (milliseconds since 1970), inclusive.
    public var from: Int64?
    /// Before this time, exclusive.
    public var to: Int64?
    /// Entries before the one with this id (a page's continuation).
    public var before: Int64?
    /// At most this many.
    public var limit: Int

    /// Creates a filter.
    public init(
        container: String? = nil, environment: String? = nil, database: String? = nil, operation: String? = nil, user: String? = nil,
        status: Int? = nil, errorsOnly: Bool = false, from: Int64? = nil, to: Int64? = nil, before: Int64? = nil, limit: Int = 100
    ) {
        self.container = container
        self.environment = environment
        self.database = database
        self.operation = operation
        self.user = user
        self.status = status
        self.errorsOnly = errorsOnly
        self.from = from
        self.to = to
        self.before = before
        self.limit = limit
    }

    /// Whether an entry passes the filter (for the live tail, which sees entries as they come).
    public func matches(_ entry: RequestLogEntry) -> Bool {
        (container == nil || container == entry.container) && (environment == nil || environment == entry.environment)
            && (database == nil || database == entry.database) && (operation == nil || operation == entry.operation)
            && (user == nil || user == entry.user) && (status == nil || status == entry.status) && (!errorsOnly || entry.status >= 400)
            && (from.map { entry.time >= $0 } ?? true) && (to.map { entry.time < $0 } ?? true)
    }
}
