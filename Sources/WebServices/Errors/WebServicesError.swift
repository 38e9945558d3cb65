/// What can go wrong at the API edge itself, before or around CloudStore: malformed requests and
/// credentials. Mapped to CloudKit's error codes in ``CloudKitError``, with CloudStore's errors.
public enum WebServicesError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The request is malformed: bad JSON, a missing or mistyped key, an unknown value. `BAD_REQUEST`.
    case badRequest(String)
    /// The credentials were rejected. `AUTHENTICATION_FAILED`.
    case authenticationFailed(String)
    /// The endpoint needs a signed-in user; `redirectURL` is where to sign in. `AUTHENTICATION_REQUIRED`.
    case authenticationRequired(String, redirectURL: String?)
    /// The caller may not use this endpoint. `ACCESS_DENIED`.
    case accessDenied(String)
    /// No such endpoint or resource. `NOT_FOUND`.
    case notFound(String)

    public var description: String {
        switch self {
        case .badRequest(let reason), .authenticationFailed(let reason), .accessDenied(let reason), .notFound(let reason):
            reason
        case .authenticationRequired(let reason, _):
            reason
        }
    }
}
