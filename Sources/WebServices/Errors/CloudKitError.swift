import CloudStore
import HTTPServer

/// An error as CloudKit Web Services reports it: a `serverErrorCode`, the HTTP status that goes
/// with it, a reason, and where they apply `retryAfter`, `redirectURL` and the server's copy of
/// a record. Every error the API can answer with passes through here, so each CloudStore and
/// WebServices error maps to exactly one code in exactly one place.
struct CloudKitError: Error, Sendable {
    var serverErrorCode: String
    var status: HTTPStatus
    var reason: String
    var retryAfter: Int?
    var redirectURL: String?
    /// For CONFLICT: the record as the server holds it.
    var serverRecord: Record?

    init(
        _ serverErrorCode: String, _ status: Int, _ reason: String, retryAfter: Int? = nil, redirectURL: String? = nil,
        serverRecord: Record? = nil
    ) {
        self.serverErrorCode = serverErrorCode
        self.status = HTTPStatus(code: status)
        self.reason = reason
        self.retryAfter = retryAfter
        self.redirectURL = redirectURL
        self.serverRecord = serverRecord
    }

    /// The CloudKit error for a CloudStore error.
    init(_ error: CloudStoreError) {
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
        // The cause stays in the server's log: clients learn only that it happened.
        case .internalError: self.init("INTERNAL_ERROR", 500, Self.internalReason)
        }
    }

    /// The CloudKit error for an error of the API edge.
    init(_ error: WebServicesError) {
        switch error {
        case .badRequest(let reason): self.init("BAD_REQUEST", 400, reason)
        case .authenticationFailed(let reason): self.init("AUTHENTICATION_FAILED", 401, reason)
        case .authenticationRequired(let reason, let url): self.init("AUTHENTICATION_REQUIRED", 421, reason, redirectURL: url)
        case .accessDenied(let reason): self.init("ACCESS_DENIED", 403, reason)
        case .notFound(let reason): self.init("NOT_FOUND", 404, reason)
        }
    }

    /// The CloudKit error for anything a handler threw.
    init(any error: any Error) {
        switch error {
        case let error as CloudKitError: self = error
        case let error as CloudStoreError: self.init(error)
        case let error as WebServicesError: self.init(error)
        case let error as ServerToServerAuthError: self.init("AUTHENTICATION_FAILED", 401, error.description)
        case let error as JSONParseError: self.init("BAD_REQUEST", 400, "The request body is not valid JSON: \(error)")
        default: self.init("INTERNAL_ERROR", 500, Self.internalReason)
        }
    }

    /// What clients are told of an internal failure; its cause is logged under the request id.
    static let internalReason = "An internal error occurred; the server logged it under this request's uuid"

    /// Whether this error hides an internal cause that must be logged.
    var isInternal: Bool { serverErrorCode == "INTERNAL_ERROR" }
}
