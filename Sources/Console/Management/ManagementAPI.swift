import CloudKitWire
import CloudStore
import HTTPServer
import Logging

/// The management JSON API under `/admin/v1/`: every console action for scripts and for
/// `cumulus --server`, authenticated by a management token (`Authorization: Bearer …`) or a
/// console session with its CSRF token. Answers are the actions' JSON; errors are CloudKit's
/// error JSON (`uuid`, `serverErrorCode`, `reason`), as the data API sends them.
struct ManagementAPI: Sendable {
    let actions: ManagementActions
    let authenticator: OperatorAuthenticator
    let logger: Logger
    /// How long a live tail may be quiet before a heartbeat, and how often its credential is
    /// checked again meanwhile.
    var tailHeartbeat: Duration = ConsoleConfiguration.defaultTailHeartbeat

    /// The largest schema a PUT may carry.
    static let maximumSchemaBytes = 4 * 1024 * 1024

    /// Adds the routes.
    func mount(on router: inout Router) {
        let actions = actions
        router.group("/admin/v1") { api in
            api.get("/containers") { request in answer(request) { _, actor in try actions.containers(as: actor) } }
            api.post("/containers") { request in
                answer(request, status: .created) { input, actor in try actions.createContainer(try input.string("identifier"), as: actor) }
            }
            api.get("/containers/:container") { request in
                answer(request) { input, actor in try actions.container(input.path("container"), as: actor) }
            }
            mountCredentials(on: &api)
            mountUsers(on: &api)
            mountSchema(on: &api)
            mountZones(on: &api)
            mountRecords(on: &api)
            mountManagementTokens(on: &api)
            mountLifecycle(on: &api)
            mountSecurity(on: &api)
            mountRequestLog(on: &api)
            mountLimits(on: &api)
            mountSync(on: &api)
        }
    }

    private func mountSync(on api: inout RouteGroup) {
        let actions = actions
        api.get("/containers/:container/:environment/subscriptions") { request in
            answer(request) { input, actor in
                try actions.subscriptions(in: input.path("container"), environment: input.path("environment"), as: actor)
            }
        }
        api.delete("/containers/:container/:environment/:database/subscriptions/:user/:subscription") { request in
            answer(request) { input, actor in
                try actions.deleteSubscription(
                    input.path("subscription"), of: input.path("user"), database: input.path("database"), owner: input.query("owner"),
                    in: input.path("container"), environment: input.path("environment"), as: actor)
            }
        }
        api.get("/containers/:container/:environment/shares") { request in
            answer(request) { input, actor in
                try actions.shares(in: input.path("container"), environment: input.path("environment"), as: actor)
            }
        }
        api.delete("/containers/:container/:environment/shares/:owner/:zone/:share") { request in
            answer(request) { input, actor in
                try actions.deleteShare(
                    input.path("share"), zone: input.path("zone"), owner: input.path("owner"), in: input.path("container"),
                    environment: input.path("environment"), as: actor)
            }
        }
        api.delete("/containers/:container/:environment/shares/:owner/:zone/:share/participants/:user") { request in
            answer(request) { input, actor in
                try actions.removeShareParticipant(
                    input.path("user"), share: input.path("share"), zone: input.path("zone"), owner: input.path("owner"),
                    in: input.path("container"), environment: input.path("environment"), as: actor)
            }
        }
        api.get("/containers/:container/:environment/push-tokens") { request in
            answer(request) { input, actor in
                try actions.pushTokens(
                    in: input.path("container"), environment: input.path("environment"), user: input.query("user"), as: actor)
            }
        }
        api.delete("/containers/:container/:environment/push-tokens/:id") { request in
            answer(request) { input, actor in
                try actions.revokePushToken(input.path("id"), in: input.path("container"), environment: input.path("environment"), as: actor)
            }
        }
        api.get("/containers/:container/:environment/notifications") { request in
            answer(request) { input, actor in
                try actions.notificationQueues(in: input.path("container"), environment: input.path("environment"), as: actor)
            }
        }
        api.get("/containers/:container/:environment/:database/zones/:zone/changes") { request in
            answer(request) { input, actor in
                try actions.changeLog(
                    zone: input.path("zone"), in: input.path("container"), environment: input.path("environment"),
                    database: input.path("database"), user: input.query("user"), after: try input.queryInteger("after"),
                    since: try input.queryInteger("since"), as: actor)
            }
        }
        api.get("/containers/:container/:environment/:database/zones/:zone/changes/next") { request in
            answer(request) { input, actor in
                try actions.nextChanges(
                    zone: input.path("zone"), syncToken: input.query("syncToken"), in: input.path("container"),
                    environment: input.path("environment"), database: input.path("database"), user: input.query("user"), as: actor)
            }
        }
    }

    private func mountLimits(on api: inout RouteGroup) {
        let actions = actions
        let base = "/containers/:container/:environment"
        api.get(base + "/limits") { request in
            answer(request) { input, actor in try actions.limits(of: input.path("container"), environment: input.path("environment"), as: actor) }
        }
        api.put(base + "/limits") { request in
            answer(request) { input, actor in
                try actions.setLimits(input.body, of: input.path("container"), environment: input.path("environment"), as: actor)
            }
        }
        api.get(base + "/usage") { request in
            answer(request) { input, actor in
                try actions.usage(
                    of: input.path("container"), environment: input.path("environment"), range: input.query("range") ?? "day", as: actor)
            }
        }
    }

    private func mountRequestLog(on api: inout RouteGroup) {
        let actions = actions
        let authenticator = authenticator
        let heartbeat = tailHeartbeat
        let filter: @Sendable (HTTPRequest) throws -> RequestLogFilter = { request in
            try actions.requestLogFilter(
                container: request.pathParameters["container"] ?? "",
                parameters: Dictionary(request.queryItems.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first }))
        }
        api.get("/containers/:container/logs") { request in
            answer(request) { _, actor in try actions.requestLog(try filter(request), as: actor) }
        }
        api.get("/containers/:container/logs/export") { request in
            answerFile(request, jsonBody: false) { input, actor in
                let format = input.query("format") ?? "jsonl"
                guard format == "jsonl" || format == "csv" else {
                    throw CloudStoreError.badRequest("Unknown export format '\(format)': use jsonl or csv")
                }
                let export = try actions.exportRequestLog(try filter(request), csv: format == "csv", as: actor)
                return Self.file(export.bytes, contentType: export.contentType)
            }
        }
        api.get("/containers/:container/logs/tail") { request in
            answerFile(request, jsonBody: false) { _, _ in
                RequestLogTail.response(actions.store.requestLog, filter: try filter(request), heartbeat: heartbeat) {
                    authenticator.stillAuthenticates(request)
                }
            }
        }
    }

    private func mountSecurity(on api: inout RouteGroup) {
        let actions = actions
        let base = "/containers/:container/:environment/security"
        api.get(base) { request in
            answer(request) { input, actor in try actions.security(of: input.path("container"), environment: input.path("environment"), as: actor) }
        }
        api.put(base + "/record-types/:type/grants") { request in
            answer(request) { input, actor in
                try actions.setGrants(
                    input.body["grants"] ?? .null, of: input.path("type"), in: input.path("container"), environment: input.path("environment"),
                    as: actor)
            }
        }
        api.post(base + "/roles") { request in
            answer(request, status: .created) { input, actor in
                try actions.createRole(try input.string("name"), in: input.path("container"), environment: input.path("environment"), as: actor)
            }
        }
        api.delete(base + "/roles/:role") { request in
            answer(request) { input, actor in
                try actions.deleteRole(input.path("role"), in: input.path("container"), environment: input.path("environment"), as: actor)
            }
        }
        api.post(base + "/simulate") { request in
            answer(request) { input, actor in
                try actions.simulateAccess(
                    subject: try input.string("subject"), permission: try input.string("permission"), recordType: try input.string("recordType"),
                    recordName: try input.optionalString("recordName"), in: input.path("container"), environment: input.path("environment"),
                    as: actor)
            }
        }
        api.put("/containers/:container/:environment/users/:user/roles") { request in
            answer(request) { input, actor in
                try actions.setUserRoles(
                    try input.strings("roles"), of: input.path("user"), in: input.path("container"), environment: input.path("environment"),
                    as: actor)
            }
        }
    }

    private func mountLifecycle(on api: inout RouteGroup) {
        let actions = actions
        api.get("/containers/:container/deployment") { request in
            answer(request) { input, actor in try actions.schemaDifference(of: input.path("container"), as: actor) }
        }
        api.post("/containers/:container/deployment") { request in
            answer(request, status: .created) { input, actor in try actions.deploySchema(of: input.path("container"), as: actor) }
        }
        api.get("/containers/:container/deployments") { request in
            answer(request) { input, actor in try actions.schemaDeployments(of: input.path("container"), as: actor) }
        }
        api.get("/audit") { request in
            answer(request) { input, actor in
                try actions.auditTrail(
                    operatorName: input.query("operator"), container: input.query("container"), action: input.query("action"),
                    before: input.query("before"), limit: Int(input.query("limit") ?? "") ?? 50, as: actor)
            }
        }
        api.get("/sign-in-attacks") { request in answer(request) { _, actor in try actions.signInAttacks(as: actor) } }
        api.get("/containers/:container/reset") { request in
            answer(request) { input, actor in try actions.developmentContents(of: input.path("container"), as: actor) }
        }
        api.post("/containers/:container/reset") { request in
            answer(request) { input, actor in
                try actions.resetDevelopment(of: input.path("container"), confirmation: try input.string("confirm"), as: actor)
            }
        }
    }

    private func mountRecords(on api: inout RouteGroup) {
        let actions = actions
        let options = RouteOptions(maxBodyBytes: Self.maximumSchemaBytes)
        let base = "/containers/:container/:environment/:database/records"
        api.post(base + "/query") { request in
            answer(request) { input, actor in
                try actions.queryRecords(
                    input.body, in: input.path("container"), environment: input.path("environment"), database: input.path("database"),
                    user: input.query("user"), as: actor)
            }
        }
        api.post(base + "/lookup") { request in
            answer(request) { input, actor in
                try actions.lookupRecords(
                    input.body, in: input.path("container"), environment: input.path("environment"), database: input.path("database"),
                    user: input.query("user"), as: actor)
            }
        }
        api.post(base + "/modify", options: options) { request in
            answer(request) { input, actor in
                try actions.modifyRecords(
                    input.body, in: input.path("container"), environment: input.path("environment"), database: input.path("database"),
                    user: input.query("user"), as: actor)
            }
        }
        api.post(base + "/export") { request in
            answerFile(request, jsonBody: true) { input, actor in
                let formatName = input.query("format") ?? "json"
                guard let format = RecordExport.Format(rawValue: formatName) else {
                    throw CloudStoreError.badRequest("Unknown export format '\(formatName)': use json or csv")
                }
                let export = try actions.exportRecords(
                    input.body, format: format, in: input.path("container"), environment: input.path("environment"),
                    database: input.path("database"), user: input.query("user"), as: actor)
                return Self.file(export.bytes, contentType: export.contentType)
            }
        }
    }

    private func mountManagementTokens(on api: inout RouteGroup) {
        let actions = actions
        api.get("/management-tokens") { request in answer(request) { _, actor in try actions.managementTokens(as: actor) } }
        api.post("/management-tokens") { request in
            answer(request, status: .created) { input, actor in
                try actions.createManagementToken(name: try input.optionalString("name") ?? "management token", as: actor)
            }
        }
        api.delete("/management-tokens/:token") { request in
            answer(request) { input, actor in try actions.revokeManagementToken(input.path("token"), as: actor) }
        }
    }

    private func mountCredentials(on api: inout RouteGroup) {
        let actions = actions
        api.get("/containers/:container/tokens") { request in
            answer(request) { input, actor in try actions.apiTokens(in: input.path("container"), as: actor) }
        }
        api.post("/containers/:container/tokens") { request in
            answer(request, status: .created) { input, actor in
                try actions.createAPIToken(
                    in: input.path("container"), environment: try input.optionalString("environment") ?? "development",
                    name: try input.optionalString("name"), allowedOrigins: try input.strings("allowedOrigins"),
                    signInCallback: try input.optionalString("signInCallback"), as: actor)
            }
        }
        api.delete("/containers/:container/tokens/:token") { request in
            answer(request) { input, actor in try actions.revokeAPIToken(input.path("token"), in: input.path("container"), as: actor) }
        }
        api.get("/containers/:container/keys") { request in
            answer(request) { input, actor in try actions.serverKeys(in: input.path("container"), as: actor) }
        }
        api.post("/containers/:container/keys") { request in
            answer(request, status: .created) { input, actor in
                try actions.addServerKey(
                    in: input.path("container"), environment: try input.optionalString("environment") ?? "development",
                    publicKeyPEM: try input.string("publicKey"), name: try input.optionalString("name"), as: actor)
            }
        }
        api.delete("/containers/:container/keys/:key") { request in
            answer(request) { input, actor in try actions.revokeServerKey(input.path("key"), in: input.path("container"), as: actor) }
        }
        // A token or key names itself: these revoke one without knowing its container.
        api.delete("/tokens/:token") { request in
            answer(request) { input, actor in try actions.revokeAPIToken(input.path("token"), in: nil, as: actor) }
        }
        api.delete("/keys/:key") { request in
            answer(request) { input, actor in try actions.revokeServerKey(input.path("key"), in: nil, as: actor) }
        }
    }

    private func mountUsers(on api: inout RouteGroup) {
        let actions = actions
        api.get("/containers/:container/users") { request in
            answer(request) { input, actor in try actions.users(in: input.path("container"), search: input.query("search"), as: actor) }
        }
        api.post("/containers/:container/users") { request in
            answer(request, status: .created) { input, actor in
                try actions.addUser(
                    in: input.path("container"), name: try input.string("name"), password: try input.string("password"),
                    emailAddress: try input.optionalString("emailAddress"), firstName: try input.optionalString("firstName"),
                    lastName: try input.optionalString("lastName"), discoverable: try input.optionalBool("discoverable") ?? false, as: actor)
            }
        }
        api.delete("/containers/:container/users/:user") { request in
            answer(request) { input, actor in try actions.removeUser(input.path("user"), in: input.path("container"), as: actor) }
        }
        api.post("/containers/:container/users/:user/password") { request in
            answer(request) { input, actor in
                try actions.setUserPassword(input.path("user"), in: input.path("container"), password: try input.string("password"), as: actor)
            }
        }
        api.post("/containers/:container/users/:user/discoverable") { request in
            answer(request) { input, actor in
                try actions.setUserDiscoverable(
                    input.path("user"), in: input.path("container"), discoverable: try input.bool("discoverable"), as: actor)
            }
        }
        api.post("/containers/:container/users/:user/sign-out") { request in
            answer(request) { input, actor in try actions.signOutUser(input.path("user"), in: input.path("container"), as: actor) }
        }
    }

    private func mountSchema(on api: inout RouteGroup) {
        let actions = actions
        let schemaOptions = RouteOptions(maxBodyBytes: Self.maximumSchemaBytes)
        api.get("/containers/:container/:environment/schema") { request in
            if request.queryParameter("format") == "ckdb" {
                return answerText(request) { input, actor in
                    try actions.schemaText(of: input.path("container"), environment: input.path("environment"), as: actor)
                }
            }
            return answer(request) { input, actor in
                try actions.schema(of: input.path("container"), environment: input.path("environment"), as: actor)
            }
        }
        api.put("/containers/:container/:environment/schema", options: schemaOptions) { request in
            answer(request, jsonBody: false) { input, actor in
                try actions.importSchema(try input.text(), into: input.path("container"), environment: input.path("environment"), as: actor)
            }
        }
        api.post("/containers/:container/:environment/schema/validate", options: schemaOptions) { request in
            answer(request, jsonBody: false) { input, actor in
                try actions.validateSchema(try input.text(), for: input.path("container"), environment: input.path("environment"), as: actor)
            }
        }
        api.post("/containers/:container/:environment/record-types") { request in
            answer(request, status: .created) { input, actor in
                try actions.createRecordType(
                    try input.string("name"), in: input.path("container"), environment: input.path("environment"), as: actor)
            }
        }
        api.post("/containers/:container/:environment/record-types/:type/fields") { request in
            answer(request, status: .created) { input, actor in
                try actions.addField(
                    try input.string("name"), type: try input.string("type"), indexes: try input.strings("indexes"),
                    to: input.path("type"), in: input.path("container"), environment: input.path("environment"), as: actor)
            }
        }
        api.put("/containers/:container/:environment/record-types/:type/fields/:field/indexes") { request in
            answer(request) { input, actor in
                try actions.setIndexes(
                    try input.strings("indexes"), of: input.path("field"), recordType: input.path("type"), in: input.path("container"),
                    environment: input.path("environment"), as: actor)
            }
        }
    }

    private func mountZones(on api: inout RouteGroup) {
        let actions = actions
        api.get("/containers/:container/:environment/:database/zones") { request in
            answer(request) { input, actor in
                try actions.zones(
                    in: input.path("container"), environment: input.path("environment"), database: input.path("database"),
                    user: input.query("user"), as: actor)
            }
        }
        api.post("/containers/:container/:environment/:database/zones") { request in
            answer(request, status: .created) { input, actor in
                try actions.createZone(
                    try input.string("zoneName"), in: input.path("container"), environment: input.path("environment"),
                    database: input.path("database"), user: try input.optionalString("user") ?? input.query("user"), as: actor)
            }
        }
        api.delete("/containers/:container/:environment/:database/zones/:zone") { request in
            answer(request) { input, actor in
                try actions.deleteZone(
                    input.path("zone"), in: input.path("container"), environment: input.path("environment"),
                    database: input.path("database"), user: input.query("user"), as: actor)
            }
        }
    }

    // MARK: - Answering

    /// Authenticates `request`, runs `action` and answers its JSON, or the error as CloudKit's
    /// error JSON.
    private func answer(
        _ request: HTTPRequest, status: HTTPStatus = .ok, jsonBody: Bool = true,
        _ action: (ManagementInput, OperatorIdentity) throws -> JSONValue
    ) -> HTTPResponse {
        do {
            let actor = try authenticator.authenticate(request).identity
            let value = try action(try ManagementInput(request, jsonBody: jsonBody), actor)
            return Self.secured(.json(value.serialized(), status: status))
        } catch {
            return failure(error, request)
        }
    }

    /// Like ``answer(_:status:jsonBody:_:)`` for an action whose answer is text.
    private func answerText(_ request: HTTPRequest, _ action: (ManagementInput, OperatorIdentity) throws -> String) -> HTTPResponse {
        answerFile(request, jsonBody: false) { input, actor in .text(try action(input, actor)) }
    }

    /// Like ``answer(_:status:jsonBody:_:)`` for an action whose answer is not JSON (an export,
    /// a schema's text): the action makes the response, which gets the API's headers.
    private func answerFile(
        _ request: HTTPRequest, jsonBody: Bool, _ action: (ManagementInput, OperatorIdentity) throws -> HTTPResponse
    ) -> HTTPResponse {
        do {
            let actor = try authenticator.authenticate(request).identity
            return Self.secured(try action(try ManagementInput(request, jsonBody: jsonBody), actor))
        } catch {
            return failure(error, request)
        }
    }

    /// A file's response: its bytes with their content type.
    private static func file(_ bytes: [UInt8], contentType: String) -> HTTPResponse {
        var response = HTTPResponse(status: .ok, bytes: bytes)
        response.headers["Content-Type"] = contentType
        return response
    }

    private func failure(_ error: any Error, _ request: HTTPRequest) -> HTTPResponse {
        var mapped = CloudKitError(known: error) ?? .unexpected
        if mapped.serverErrorCode == "INTERNAL_ERROR" {
            logger.error("management request failed: \(error)", metadata: ["request-id": .string(request.requestID)])
        }
        // A script without a valid credential is told 401, whatever kind of credential it lacked.
        if mapped.serverErrorCode == "AUTHENTICATION_REQUIRED" { mapped = CloudKitError("AUTHENTICATION_FAILED", 401, mapped.reason) }
        var body = mapped.body(uuid: request.requestID)
        // Scripts and the console can add the index a query needs without parsing the reason.
        if case CloudStoreError.missingIndex(let missing) = error, case .object(var object) = body {
            object["missingIndex"] = [
                "recordType": .string(missing.recordType), "field": .string(missing.field), "index": .string(missing.index.rawValue),
            ]
            body = .object(object)
        }
        var response = HTTPResponse.json(body.serialized(), status: HTTPStatus(code: mapped.status))
        if let retryAfter = mapped.retryAfter { response.headers["Retry-After"] = String(retryAfter) }
        if mapped.status == 401 { response.headers["WWW-Authenticate"] = "Bearer realm=\"cumulus\"" }
        return Self.secured(response)
    }

    /// Management answers hold credentials and private data: no cache keeps them.
    private static func secured(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers["Cache-Control"] = "no-store"
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response
    }
}
