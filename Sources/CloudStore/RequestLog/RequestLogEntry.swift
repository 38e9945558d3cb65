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
    /// The reason CloudKit's error answer gave the client (never an internal cause); for a
    /// success whose results failed one by one, the first failed result's code and reason;
    /// `nil` otherwise, and for calls logged before reasons were kept.
    public var reason: String?
    /// The API token or server key the call carried, by name.
    public var credential: RequestLogCredential?
    /// The client's `User-Agent`.
    public var userAgent: String?
    /// The record types the answer's records have, comma-separated in the order first met
    /// (record type names hold no comma); `nil` when the answer was not read for them.
    public var recordTypes: String?
    /// The zones the answer's records and zones are in, comma-separated as ``recordTypes``.
    public var zones: String?
    /// How many records, zones or subscriptions the answer had one result for; `nil` when
    /// not counted (answers written out without a tree, and calls logged before counts were kept).
    public var results: Int?
    /// The per-result failures of the answer by `serverErrorCode`: a `200` whose records
    /// failed one by one (`ACCESS_DENIED`, `CONFLICT`…).
    public var resultErrors: [String: Int] = [:]
    /// The access decisions the call's checks recorded at the time of the call: every refusal,
    /// and what was allowed when the call was sampled (``RequestTraceSampler``). Empty for
    /// calls without, and calls logged before traces were kept.
    public var trace: [AccessExplanation] {
        get { decisions?.trace ?? [] }
        set { decisions = Decisions(trace: newValue, schemaGap: schemaGap) }
    }
    /// In production, the record type, field or index the schema lacked when that refused the
    /// call; what the schema guard counts.
    public var schemaGap: SchemaGap? {
        get { decisions?.schemaGap }
        set { decisions = Decisions(trace: trace, schemaGap: newValue) }
    }
    /// Keeps what `trace` recorded of the call: its access decisions and schema gap, read at once.
    public mutating func keep(_ trace: RequestTrace) {
        let recorded = trace.contents
        decisions = Decisions(trace: recorded.explanations, schemaGap: recorded.schemaGap)
    }

    /// Both of the above, kept apart from the entry's own fields: most calls have neither, and an
    /// entry is copied several times on its way to the log, each copy retaining what it holds.
    private var decisions: Decisions?

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

    /// Whether the call was refused for want of something production's schema lacks.
    public var isSchemaRefusal: Bool { schemaGap != nil }

    /// Results of the answer that failed one by one.
    public var failedResults: Int { resultErrors.values.reduce(0, +) }

    /// Whether the call failed: an error status, or a success with results that failed.
    public var isFailure: Bool { status >= 400 || !resultErrors.isEmpty }

    /// The per-result failures by code, the most frequent first (codes in order among equals).
    public var resultErrorsByCount: [(code: String, count: Int)] {
        resultErrors.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// The per-result failures in words, such as `2 of 5 records: ACCESS_DENIED`, most frequent
    /// code first; `nil` when none failed.
    public var resultFailureSummary: String? {
        guard !resultErrors.isEmpty else { return nil }
        let codes = resultErrorsByCount.map(\.code)
        let of = results.map { " of \($0)" } ?? ""
        return "\(failedResults)\(of) \(failedResults == 1 && results == 1 ? "record" : "records"): " + codes.joined(separator: ", ")
    }

    /// The per-result failures packed as `CODE=count` pairs, comma-separated, codes in order:
    /// how both backends keep them.
    var packedResultErrors: String? {
        guard !resultErrors.isEmpty else { return nil }
        return resultErrors.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
    }

    /// Replaces `user` by `replacement` wherever the entry names them: as its caller, and in its
    /// access trace (a caller, a database's owner, a record's creator).
    /// - Returns: whether the call was the user's own.
    mutating func anonymise(_ user: String, as replacement: String) -> Bool {
        if let packed = packedTrace, packed.contains(user) {
            trace = RequestLogTrace.unpacked(packed.replacingOccurrences(of: user, with: replacement))
        }
        guard self.user == user else { return false }
        self.user = replacement
        return true
    }

    /// The trace as both backends keep it (JSON text); `nil` for none.
    var packedTrace: String? { RequestLogTrace.packed(trace) }

    /// Per-result failures from their packed form (``packedResultErrors``); what cannot be read is left out.
    static func resultErrors(packed: String?) -> [String: Int] {
        guard let packed else { return [:] }
        var errors: [String: Int] = [:]
        for pair in packed.split(separator: ",") {
            let parts = pair.split(separator: "=")
            guard parts.count == 2, let count = Int(parts[1]) else { continue }
            errors[String(parts[0])] = count
        }
        return errors
    }
}

/// The credential a logged call carried, by name.
public enum RequestLogCredential: Hashable, Sendable {
    /// An API token with this name.
    case apiToken(String)
    /// A server-to-server key with this name.
    case serverKey(String)

    /// The credential in words: `API token web`, `server key deploy`.
    public var description: String {
        switch self {
        case .apiToken(let name): "API token " + name
        case .serverKey(let name): "server key " + name
        }
    }

    /// How both backends keep it: a kind letter, a colon and the name.
    var packed: String {
        switch self {
        case .apiToken(let name): "t:" + name
        case .serverKey(let name): "k:" + name
        }
    }

    /// A credential from its packed form; `nil` for anything else.
    init?(packed: String?) {
        guard let packed, packed.count >= 2 else { return nil }
        let name = String(packed.dropFirst(2))
        if packed.hasPrefix("t:") {
            self = .apiToken(name)
        } else if packed.hasPrefix("k:") {
            self = .serverKey(name)
        } else {
            return nil
        }
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
    /// Failures only: a status of 400 or more, or results that failed one by one.
    public var errorsOnly: Bool
    /// From this time on (milliseconds since 1970), inclusive.
    public var from: Int64?
    /// Before this time, exclusive.
    public var to: Int64?
    /// Entries before the one with this id (a page's continuation).
    public var before: Int64?
    /// The call with this request id (as in `X-Apple-Request-UUID`).
    public var requestID: String?
    /// Only calls refused for want of something production's schema lacks (``RequestLogEntry/schemaGap``).
    public var schemaRefusalsOnly = false
    /// At most this many.
    public var limit: Int

    /// Creates a filter.
    public init(
        container: String? = nil, environment: String? = nil, database: String? = nil, operation: String? = nil, user: String? = nil,
        status: Int? = nil, errorsOnly: Bool = false, from: Int64? = nil, to: Int64? = nil, before: Int64? = nil,
        requestID: String? = nil, limit: Int = 100, schemaRefusalsOnly: Bool = false
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
        self.requestID = requestID
        self.limit = limit
        self.schemaRefusalsOnly = schemaRefusalsOnly
    }

    /// Whether an entry passes the filter (for the live tail, which sees entries as they come).
    public func matches(_ entry: RequestLogEntry) -> Bool {
        (container == nil || container == entry.container) && (environment == nil || environment == entry.environment)
            && (database == nil || database == entry.database) && (operation == nil || operation == entry.operation)
            && (user == nil || user == entry.user) && (status == nil || status == entry.status) && (!errorsOnly || entry.isFailure)
            && (from.map { entry.time >= $0 } ?? true) && (to.map { entry.time < $0 } ?? true)
            && (requestID == nil || requestID == entry.requestID) && (!schemaRefusalsOnly || entry.isSchemaRefusal)
    }
}

extension RequestLogEntry {
    /// A call's recorded decisions, never changed once made (an entry's setters make a new one).
    final class Decisions: Hashable, Sendable {
        let trace: [AccessExplanation]
        let schemaGap: SchemaGap?

        /// `nil` for nothing recorded, so that an entry without holds no reference.
        convenience init?(trace: [AccessExplanation], schemaGap: SchemaGap?) {
            guard !trace.isEmpty || schemaGap != nil else { return nil }
            self.init(holding: trace, schemaGap)
        }

        private init(holding trace: [AccessExplanation], _ schemaGap: SchemaGap?) {
            self.trace = trace
            self.schemaGap = schemaGap
        }

        static func == (lhs: Decisions, rhs: Decisions) -> Bool { lhs.trace == rhs.trace && lhs.schemaGap == rhs.schemaGap }

        func hash(into hasher: inout Hasher) {
            hasher.combine(trace)
            hasher.combine(schemaGap)
        }
    }
}
