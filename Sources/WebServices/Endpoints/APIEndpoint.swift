import CloudKitWire
import CloudStore
import Foundation
import HTTPServer

/// Turns an endpoint's body into an HTTP handler: reads the path and the JSON body, authenticates,
/// runs the endpoint, and writes its JSON — or, for anything thrown, CloudKit's error JSON with its
/// status, a `redirectURL` to sign in where one is needed, and the rotated web auth token.
struct APIEndpoint: Sendable {
    let store: CloudStore
    let authenticator: RequestAuthenticator
    let configuration: WebServicesConfiguration

    /// What an endpoint does with a request it was handed, authenticated and admitted.
    enum Body: Sendable {
        /// Answers in the calling thread.
        case now(@Sendable (APIContext) throws -> JSONValue)
        /// Hands the work on (a write to the writer) and has the answer passed to the completion
        /// later, from any thread, so that no worker waits for it.
        case later(@Sendable (APIContext, _ completion: @escaping @Sendable (Result<JSONValue, any Error>) -> Void) throws -> Void)
    }

    /// How long a deferred answer may take before the client is told to try again (the work
    /// itself still ends: a write commits or not whatever the client was told).
    static let deferredTimeout = Duration.seconds(120)

    /// A handler running `body`: `operation` (such as `records/query`) is what the request log
    /// calls the route, and `scan`, when given, reads bodies of the shape it knows without a tree.
    func handler(operation: String, scan: BodyScan? = nil, _ body: Body) -> HTTPHandler {
        { request in
            let started = ContinuousClock.now
            var authentication: Authentication?
            let trace = configuration.traceSampler.trace()
            do {
                let context = try admit(request, scan: scan, trace: trace, authentication: &authentication)
                switch body {
                case .now(let body):
                    let outcome = success(try body(context), operation, request: request, authentication: context.authentication)
                    return logged(outcome, request, operation, started, trace: trace)
                case .later(let body):
                    let pending = PendingResponse(timeout: Self.deferredTimeout, waitsThroughShutdown: true) { [self] in
                        let timedOut = CloudKitError(
                            "TRY_AGAIN_LATER", 503, "The request did not finish in time; it may still take effect", retryAfter: 1)
                        return respond(timedOut.httpStatus, timedOut.body(uuid: request.requestID), request: request, authentication: nil)
                    }
                    let authenticated = context.authentication
                    try body(context) { result in
                        let outcome =
                            switch result {
                            case .success(let json): success(json, operation, request: request, authentication: authenticated)
                            case .failure(let error): failure(error, request: request, authentication: authenticated)
                            }
                        pending.complete(logged(outcome, request, operation, started, trace: trace))
                    }
                    return .deferred(pending)
                }
            } catch {
                return logged(failure(error, request: request, authentication: authentication), request, operation, started, trace: trace)
            }
        }
    }

    /// Adds the call to the request log (recording only appends to a buffer) and returns its answer.
    private func logged(
        _ outcome: Outcome, _ request: HTTPRequest, _ operation: String, _ started: ContinuousClock.Instant, trace: RequestTrace
    ) -> HTTPResponse {
        record(
            outcome, request, operation, started, container: request.pathParameters["container"] ?? "",
            environment: request.pathParameters["environment"] ?? "", database: request.pathParameters["database"] ?? "", trace: trace)
        return outcome.response
    }

    /// Adds a call to the request log, whose bytes count toward its environment's monthly
    /// transfer, with the access decisions `trace` recorded.
    func record(
        _ outcome: Outcome, _ request: HTTPRequest, _ operation: String, _ started: ContinuousClock.Instant, container: String,
        environment: String, database: String, trace: RequestTrace? = nil
    ) {
        let elapsed = ContinuousClock.now - started
        var entry = RequestLogEntry(
            time: store.configuration.clock(), container: container, environment: environment, database: database,
            operation: operation, user: outcome.user, clientAddress: request.client.host, status: outcome.response.status.code,
            serverErrorCode: outcome.errorCode,
            durationMicroseconds: elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000,
            bytesIn: Int64(request.body.count), bytesOut: Self.byteCount(of: outcome.response), requestID: request.requestID)
        entry.reason = outcome.reason
        entry.credential = outcome.credential
        entry.userAgent = request.headers["User-Agent"]
        if let trace { entry.keep(trace) }
        if let answer = outcome.answer {
            entry.recordTypes = answer.recordTypes
            entry.zones = answer.zones
            entry.results = answer.results
            entry.resultErrors = answer.errors
            entry.reason = answer.reason
        }
        store.requestLog.record(entry)
    }

    /// An answer, with what the request log keeps of how it came about.
    struct Outcome {
        var response: HTTPResponse
        /// The signed-in user, once authenticated.
        var user: String?
        /// CloudKit's code of an error answer.
        var errorCode: String?
        /// The reason the error answer gave the client.
        var reason: String?
        /// The API token or server key the request carried, by name.
        var credential: RequestLogCredential?
        /// What the log keeps of a success's contents.
        var answer: LoggedAnswer?
    }

    /// Reads the path and the body, authenticates and applies the limits: the context an
    /// endpoint runs in. `authentication` is set as soon as it is known, for the error answer.
    private func admit(_ request: HTTPRequest, scan: BodyScan?, trace: RequestTrace, authentication: inout Authentication?) throws
        -> APIContext
    {
        let scope = try APIScope(request.pathParameters)
        // The body is JSON whatever the Content-Type says; no body reads as an empty object. A
        // scan reads only bodies the tree reads alike, so any error comes from the tree.
        let scanned = scan?.scan(request.body)
        let json: JSONValue =
            if let scanned { scanned.envelope } else if request.body.isEmpty { .object([:]) } else { try JSONValue.parse(request.body) }
        guard json.objectValue != nil else { throw WebServicesError.badRequest("The request body must be a JSON object") }
        let database = scope.database?.rawValue ?? ""
        let authenticated: Authentication
        do {
            authenticated = try authenticator.authenticate(request, container: scope.container, environment: scope.environment)
        } catch {
            trace.recordRefusal(
                caller: "unknown", database: database,
                rule: "a request carries a known API token (with a live session) or a valid server-to-server signature",
                why: CloudKitError(any: error).reason)
            throw error
        }
        authentication = authenticated
        // Limits apply to callers who got this far, as CloudKit's do: a request without
        // credentials is refused before any limit counts it.
        do {
            try store.admitRequest(to: scope.container, scope.environment)
        } catch {
            trace.recordRefusal(
                caller: authenticated.caller.description, database: database, rule: "the container's limits admit the request",
                why: CloudKitError(any: error).reason)
            throw error
        }
        return APIContext(
            request: request, store: store, scope: scope,
            authentication: authenticated, body: .body(json), scanned: scanned, publicURL: configuration.publicURL,
            allowedHosts: configuration.allowedHosts, trace: trace)
    }

    private func success(_ json: JSONValue, _ operation: String, request: HTTPRequest, authentication: Authentication) -> Outcome {
        Outcome(
            response: respond(.ok, json, request: request, authentication: authentication), user: authentication.caller.signedInUser,
            credential: authentication.loggedCredential, answer: LoggedAnswer(json, operation: operation))
    }

    /// CloudKit's error answer for `error`; an internal cause is logged under the request id,
    /// never sent.
    private func failure(_ error: any Error, request: HTTPRequest, authentication: Authentication?) -> Outcome {
        var failure = CloudKitError(any: error)
        if failure.isInternal {
            configuration.logger.error(
                "\(request.method) \(request.path) failed: \(error)", metadata: ["request-id": .string(request.requestID)])
        }
        if failure.serverErrorCode == "AUTHENTICATION_REQUIRED", failure.redirectURL == nil,
            let token = authentication?.apiToken ?? request.queryParameter("ckAPIToken").flatMap({ try? store.apiToken($0) })
        {
            failure.redirectURL = configuration.signInURL(baseURL(of: request), token.token, request.headers["Origin"])
        }
        let response = respond(failure.httpStatus, failure.body(uuid: request.requestID), request: request, authentication: authentication)
        return Outcome(
            response: response, user: authentication?.caller.signedInUser, errorCode: failure.serverErrorCode, reason: failure.reason,
            credential: authentication?.loggedCredential)
    }

    /// CloudKit's error JSON for a failure outside the JSON endpoints (asset uploads and
    /// downloads); an internal cause is logged under the request id, never sent.
    func failure(_ error: any Error, request: HTTPRequest) -> Outcome {
        let failure = CloudKitError(any: error)
        if failure.isInternal {
            let path = LogRedaction.redact(path: request.path, prefixes: WebServices.credentialPathPrefixes)
            configuration.logger.error("\(request.method) \(path) failed: \(error)", metadata: ["request-id": .string(request.requestID)])
        }
        let response = respond(failure.httpStatus, failure.body(uuid: request.requestID), request: request, authentication: nil)
        return Outcome(response: response, errorCode: failure.serverErrorCode, reason: failure.reason)
    }

    /// The bytes of a JSON answer's body (API answers are never streamed).
    static func byteCount(of response: HTTPResponse) -> Int64 {
        if case .bytes(let bytes) = response.body { return Int64(bytes.count) }
        return 0
    }

    private func respond(_ status: HTTPStatus, _ json: JSONValue, request: HTTPRequest, authentication: Authentication?) -> HTTPResponse {
        // Made here with room for all of them: each name is added once, so none is looked for.
        var headers = HTTPHeaders(capacity: 5)
        headers.add(name: "Content-Type", value: HTTPResponse.jsonContentType)
        headers.add(name: "X-Apple-Request-UUID", value: request.requestID)
        headers.add(name: "Cache-Control", value: WebServices.noStore)
        // Every answer to a signed-in user hands back a web auth token at most a second old, under
        // both names CloudKit JS builds read.
        if let session = authentication?.session {
            let token = store.webAuthToken(for: session)
            headers.add(name: "X-Apple-CloudKit-Web-Auth-Token", value: token)
            headers.add(name: "X-Apple-CloudKit-Session", value: token)
        }
        return HTTPResponse(status: status, headers: headers, body: .bytes(json.serialized()))
    }

    /// The server's base URL for links handed to this client (sign-in, the web courier, assets):
    /// the public URL, else an allowed `Host`, else the listen address (see
    /// `HTTPRequest.baseURL(publicURL:allowedHosts:)`).
    func baseURL(of request: HTTPRequest) -> String {
        request.baseURL(publicURL: configuration.publicURL, allowedHosts: configuration.allowedHosts) ?? ""
    }
}
