import CloudKitWire
import CloudStore

/// Who a request comes from, as its credentials prove.
struct Authentication: Sendable {
    /// The caller CloudStore enforces its rules for.
    var caller: Caller
    /// The API token the request carried, if any.
    var apiToken: APIToken?
    /// The signed-in user's session, with a web auth token.
    var session: WebSession?
    /// The server-to-server key that signed the request.
    var serverKey: ServerKey?
}

extension Authentication {
    /// The credential the request carried, by name, as the request log and the change log keep
    /// it: the server key that signed it, else its API token.
    var loggedCredential: RequestLogCredential? {
        if let serverKey { return .serverKey(serverKey.name) }
        return apiToken.map { .apiToken($0.name) }
    }
}
