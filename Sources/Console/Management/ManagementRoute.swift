import CloudKitWire
import CloudStore
import HTTPServer

/// One route of the management API, as data: the router mounts from the table of these
/// (``ManagementAPI/routes``), and the tests check it against the routes served and against
/// `Public/openapi-management.json`.
struct ManagementRoute: Sendable {
    /// What the request body is read as.
    enum Body: Sendable {
        /// A JSON object (none reads as an empty one).
        case json
        /// Bytes the handler reads itself: a schema's text, or nothing.
        case raw
    }

    /// What answers the route.
    enum Handler: Sendable {
        /// An action whose answer is sent as JSON.
        case json(@Sendable (ManagementActions, ManagementInput, OperatorIdentity) throws -> JSONValue)
        /// An action whose answer is a response of its own (an export, a schema's text, a live tail),
        /// sent with the API's headers.
        case response(@Sendable (ManagementAPI, ManagementInput, OperatorIdentity) throws -> HTTPResponse)
    }

    /// The HTTP method.
    let method: HTTPMethod
    /// The path under `/admin/v1`, with `:name` parameters.
    let pattern: String
    /// The operation's name: the action it runs.
    let operation: String
    /// What the operator must be allowed (``OperatorAccess/check(_:on:)``), checked before the
    /// action runs against the container, environment and database of the path.
    let needs: OperatorPermission
    /// How the body is read.
    let body: Body
    /// The status of a success.
    let status: HTTPStatus
    /// The route's limits (the largest body).
    let options: RouteOptions
    /// What answers.
    let handler: Handler

    /// A route answered by a JSON action.
    static func json(
        _ method: HTTPMethod, _ pattern: String, _ operation: String, needs: OperatorPermission, body: Body = .json,
        status: HTTPStatus = .ok,
        options: RouteOptions = .default,
        _ action: @escaping @Sendable (ManagementActions, ManagementInput, OperatorIdentity) throws -> JSONValue
    ) -> ManagementRoute {
        ManagementRoute(
            method: method, pattern: pattern, operation: operation, needs: needs, body: body, status: status, options: options,
            handler: .json(action))
    }

    /// A route whose action makes its own response.
    static func response(
        _ method: HTTPMethod, _ pattern: String, _ operation: String, needs: OperatorPermission, body: Body,
        _ action: @escaping @Sendable (ManagementAPI, ManagementInput, OperatorIdentity) throws -> HTTPResponse
    ) -> ManagementRoute {
        ManagementRoute(
            method: method, pattern: pattern, operation: operation, needs: needs, body: body, status: .ok, options: .default,
            handler: .response(action))
    }
}
