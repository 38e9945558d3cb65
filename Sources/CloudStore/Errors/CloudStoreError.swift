/// Everything that can go wrong in CloudStore. Each case corresponds to exactly one CloudKit
/// server error code; the API edge maps them, in one place.
public enum CloudStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The request is malformed or breaks a rule (unknown type in production, missing index,
    /// bad value type, too many operations…). CloudKit: `BAD_REQUEST`.
    case badRequest(String)
    /// A record, container or other resource does not exist. CloudKit: `NOT_FOUND`.
    case notFound(String)
    /// A query filters or sorts on a field without the index it needs, as CloudKit words it
    /// (`Field 'title' is not marked queryable`). CloudKit: `BAD_REQUEST`. Carries which index
    /// would serve, so a console can offer to add it.
    case missingIndex(MissingIndex)
    /// The zone does not exist. CloudKit: `ZONE_NOT_FOUND`.
    case zoneNotFound(ZoneID)
    /// The change tag is stale, or the record to create already exists; carries the server's
    /// current record when there is one. CloudKit: `CONFLICT`.
    case conflict(String, serverRecord: Record?)
    /// A zone, container or other resource to create already exists. CloudKit: `EXISTS`.
    case exists(String)
    /// Another operation of an atomic batch failed, so this one was not applied. CloudKit: `ATOMIC_ERROR`.
    case atomicFailure(String)
    /// The caller lacks the permission. CloudKit: `ACCESS_DENIED`.
    case accessDenied(String)
    /// The caller must sign in first. CloudKit: `AUTHENTICATION_REQUIRED`.
    case authenticationRequired(String)
    /// The credentials were rejected. CloudKit: `AUTHENTICATION_FAILED`.
    case authenticationFailed(String)
    /// A VALIDATE reference points at a missing record, or a record still referenced that way
    /// is being deleted. CloudKit: `VALIDATING_REFERENCE_ERROR`.
    case validatingReference(String)
    /// A size limit or quota was exceeded, such as a record over 1 MB. CloudKit: `QUOTA_EXCEEDED`.
    case quotaExceeded(String)
    /// Too many requests; retry after the given number of seconds. CloudKit: `THROTTLED`.
    case throttled(String, retryAfter: Int)
    /// A change token from before a reset or restore of its environment, or older than the
    /// change log keeps: the client must fetch everything again. CloudKit: `CHANGE_TOKEN_EXPIRED`
    /// (which CloudKit JS reads as `serverErrorCode`).
    case changeTokenExpired(String)
    /// A transient failure, such as the database staying locked; retry. CloudKit: `TRY_AGAIN_LATER`.
    case tryAgainLater(String)
    /// An unexpected failure of the store itself. CloudKit: `INTERNAL_ERROR`.
    case internalError(String)

    /// The human-readable reason.
    public var reason: String {
        switch self {
        case .badRequest(let reason), .notFound(let reason), .exists(let reason), .atomicFailure(let reason),
            .accessDenied(let reason), .authenticationRequired(let reason), .authenticationFailed(let reason),
            .validatingReference(let reason), .quotaExceeded(let reason), .tryAgainLater(let reason),
            .changeTokenExpired(let reason), .internalError(let reason):
            reason
        case .conflict(let reason, _), .throttled(let reason, _):
            reason
        case .zoneNotFound(let zoneID):
            "Zone '\(zoneID.zoneName)' does not exist"
        case .missingIndex(let missing):
            "Field '\(missing.field)' is not marked \(missing.index.rawValue.lowercased())"
        }
    }

    public var description: String { reason }

    /// Whether the error is about this one item of a batch (a record, a zone) and can be
    /// reported in its place while the others go on. An internal failure is not: it fails the
    /// whole request, so that nothing half-done commits.
    public var isPerItem: Bool {
        if case .internalError = self { return false }
        return true
    }
}

/// An index a query needed and did not find.
public struct MissingIndex: Hashable, Sendable {
    /// The record type queried.
    public var recordType: String
    /// The field, as the schema names it (`title`, `___recordID`).
    public var field: String
    /// The index that would serve the query.
    public var index: IndexKind

    /// Creates a description.
    public init(recordType: String, field: String, index: IndexKind) {
        self.recordType = recordType
        self.field = field
        self.index = index
    }
}
