import CloudStore

/// An error as CloudKit Web Services reports it: a `serverErrorCode`, the HTTP status that goes
/// with it, a reason, and where they apply `retryAfter`, `redirectURL` and the server's copy of
/// a record. Every error an API answers with passes through here, so each CloudStore error maps
/// to exactly one code in exactly one place, for the CloudKit API and the management API alike.
public struct CloudKitError: Error, Sendable {
    /// CloudKit's code, such as `BAD_REQUEST`.
    public var serverErrorCode: String
    /// The HTTP status CloudKit answers the code with.
    public var status: Int
    /// What went wrong, for people.
    public var reason: String
    /// When to try again, in seconds.
    public var retryAfter: Int?
    /// Where to sign in, for `AUTHENTICATION_REQUIRED`.
    public var redirectURL: String?
    /// For CONFLICT: the record as the server holds it.
    public var serverRecord: Record?

    /// Creates an error.
    public init(
        _ serverErrorCode: String, _ status: Int, _ reason: String, retryAfter: Int? = nil, redirectURL: String? = nil,
        serverRecord: Record? = nil
    ) {
        self.serverErrorCode = serverErrorCode
        self.status = status
        self.reason = reason
        self.retryAfter = retryAfter
        self.redirectURL = redirectURL
        self.serverRecord = serverRecord
    }

    /// The CloudKit error for a CloudStore error.
    public init(_ error: CloudStoreError) {
        switch error {
        case .badRequest(let reason): self.init("BAD_REQUEST", 400, reason)
        case .notFound(let reason): self.init("NOT_FOUND", 404, reason)
        case .missingIndex: self.init("BAD_REQUEST", 400, error.reason)
        case .zoneNotFound: self.init("ZONE_NOT_FOUND", 404, error.reason)
        case .conflict(let reason, let record): self.init("CONFLICT", 409, reason, serverRecord: record)
        case .exists(let reason): self.init("EXISTS", 409, reason)
        case .atomicFailure(let reason): self.init("ATOMIC_ERROR", 400, reason)
        case .accessDenied(let reason): self.init("ACCESS_DENIED", 403, reason)
        case .authenticationRequired(let reason): self.init("AUTHENTICATION_REQUIRED", 421, reason)
        case .authenticationFailed(let reason): self.init("AUTHENTICATION_FAILED", 401, reason)
        case .validatingReference(let reason): self.init("VALIDATING_REFERENCE_ERROR", 412, reason)
        case .quotaExceeded(let reason): self.init("QUOTA_EXCEEDED", 413, reason)
        case .throttled(let reason, let retryAfter): self.init("THROTTLED", 429, reason, retryAfter: retryAfter)
        case .tryAgainLater(let reason): self.init("TRY_AGAIN_LATER", 503, reason, retryAfter: 1)
        // No status is documented for it; 400, as for any token the server will not take.
        case .changeTokenExpired(let reason): self.init("CHANGE_TOKEN_EXPIRED", 400, reason)
        // The cause stays in the server's log: clients learn only that it happened.
        case .internalError: self.init("INTERNAL_ERROR", 500, Self.internalReason)
        }
    }

    /// The CloudKit error for a body that cannot be read.
    public init(_ error: WireError) {
        self.init("BAD_REQUEST", 400, error.reason)
    }

    /// The CloudKit error for the errors this module knows; `nil` for others.
    public init?(known error: any Error) {
        switch error {
        case let error as CloudKitError: self = error
        case let error as CloudStoreError: self.init(error)
        case let error as WireError: self.init(error)
        case let error as JSONParseError: self.init("BAD_REQUEST", 400, "The request body is not valid JSON: \(error)")
        default: return nil
        }
    }

    /// The error for a failure nobody expected: INTERNAL_ERROR, cause not told.
    public static let unexpected = CloudKitError("INTERNAL_ERROR", 500, internalReason)

    /// What clients are told of an internal failure; its cause is logged under the request id.
    public static let internalReason = "An internal error occurred; the server logged it under this request's uuid"

    /// Whether this error hides an internal cause that must be logged.
    public var isInternal: Bool { serverErrorCode == "INTERNAL_ERROR" }

    /// The request-level error body: `{uuid, serverErrorCode, reason[, retryAfter, redirectURL]}`.
    public func body(uuid: String) -> JSONValue {
        var object: JSONObject = ["uuid": .string(uuid), "serverErrorCode": .string(serverErrorCode), "reason": .string(reason)]
        if let retryAfter { object["retryAfter"] = .integer(Int64(retryAfter)) }
        if let redirectURL { object["redirectURL"] = .string(redirectURL) }
        return .object(object)
    }
}
