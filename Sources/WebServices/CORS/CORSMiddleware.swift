import CloudKitWire
import CloudStore
import HTTPServer

/// Lets browsers call the API from the origins an API token allows, so that CloudKit JS works in
/// a page: answers preflight `OPTIONS` requests and adds `Access-Control-Allow-Origin` to
/// answers. A request from an origin its token does not allow is refused with ACCESS_DENIED.
struct CORSMiddleware: HTTPMiddleware {
    let store: CloudStore
    /// This server's origin as a request reached it: pages of the server itself may always call.
    let ownOrigin: @Sendable (HTTPRequest) -> String

    /// Headers browser code may read: the rotated web auth token (under both its names) and the
    /// request's id.
    static let exposedHeaders = "X-Apple-CloudKit-Web-Auth-Token, X-Apple-CloudKit-Session, X-Apple-Request-UUID"

    func respond(to request: HTTPRequest, next: HTTPHandler) throws -> HTTPResponse {
        guard let origin = request.headers["Origin"] else { return try next(request) }
        let token = request.queryParameter("ckAPIToken").flatMap { try? store.apiToken($0) }
        // Without an API token there is nothing to check the origin against: server-to-server
        // requests are not made by browsers, and an unauthenticated request is refused anyway.
        let allowed = token.map { $0.allows(origin: origin) || origin.caseInsensitiveCompare(ownOrigin(request)) == .orderedSame } ?? true
        guard allowed else {
            let error = CloudKitError(WebServicesError.accessDenied("The origin \(origin) is not allowed by this API token"))
            var response = HTTPResponse.json(error.body(uuid: request.requestID).serialized(), status: error.httpStatus)
            response.headers.replaceOrAdd(name: "Vary", value: "Origin")
            return response
        }
        if request.method == .options, request.headers["Access-Control-Request-Method"] != nil {
            var response = HTTPResponse(status: .noContent)
            response.headers.replaceOrAdd(name: "Access-Control-Allow-Methods", value: "GET, POST, OPTIONS")
            response.headers.replaceOrAdd(
                name: "Access-Control-Allow-Headers",
                value: request.headers["Access-Control-Request-Headers"] ?? "Content-Type")
            response.headers.replaceOrAdd(name: "Access-Control-Max-Age", value: "600")
            return Self.allow(origin, on: response)
        }
        return Self.allow(origin, on: try next(request))
    }

    private static func allow(_ origin: String, on response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers.replaceOrAdd(name: "Access-Control-Allow-Origin", value: origin)
        response.headers.replaceOrAdd(name: "Access-Control-Expose-Headers", value: exposedHeaders)
        response.headers.replaceOrAdd(name: "Vary", value: "Origin")
        return response
    }
}
