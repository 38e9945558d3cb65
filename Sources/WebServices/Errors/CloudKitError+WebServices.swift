import CloudKitWire
import CloudStore
import HTTPServer

extension CloudKitError {
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
        if let known = CloudKitError(known: error) {
            self = known
            return
        }
        switch error {
        case let error as WebServicesError: self.init(error)
        case let error as ServerToServerAuthError: self.init("AUTHENTICATION_FAILED", 401, error.description)
        default: self = .unexpected
        }
    }

    /// The HTTP status to answer with.
    var httpStatus: HTTPStatus { HTTPStatus(code: status) }
}
