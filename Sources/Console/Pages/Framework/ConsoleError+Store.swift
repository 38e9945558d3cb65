import CloudKitWire
import CloudStore

extension ConsoleError {
    /// The page error for a store or request error: its reason shown with the matching status;
    /// an internal failure stays internal (logged, never shown).
    init(_ error: any Error) {
        switch error {
        case let error as ConsoleError:
            self = error
        case let error as CloudStoreError:
            switch error {
            case .badRequest, .missingIndex, .quotaExceeded, .atomicFailure, .changeTokenExpired: self = .badRequest(error.reason)
            case .notFound, .zoneNotFound: self = .notFound(error.reason)
            case .conflict, .exists, .validatingReference: self = .conflict(error.reason)
            case .accessDenied, .authenticationRequired, .authenticationFailed: self = .forbidden(error.reason)
            case .throttled(let reason, let retryAfter): self = .throttled(reason, retryAfter: retryAfter)
            case .tryAgainLater(let reason): self = .unavailable(reason)
            case .internalError(let reason): self = .internalError(reason)
            }
        case let error as WireError:
            self = .badRequest(error.reason)
        default:
            self = .internalError("\(error)")
        }
    }

    /// The page error for one record operation that failed, as the record form shows it: a stale
    /// change tag as a conflict, a missing record or zone as not found, a refusal as forbidden,
    /// anything else as a bad request, each with the reason CloudKit's answer gives.
    init(recordFailure error: CloudStoreError) {
        let reason = CloudKitError(error).reason
        switch error {
        case .conflict: self = .conflict(reason)
        case .notFound, .zoneNotFound: self = .notFound(reason)
        case .accessDenied, .authenticationRequired: self = .forbidden(reason)
        default: self = .badRequest(reason)
        }
    }

    /// Whether the person at the page can act on the message (anything but a server failure).
    var isShown: Bool { status.code < 500 }
}
