import CloudKitWire
import CloudStore
import HTTPServer

/// One API request as an endpoint sees it: where it goes, who sends it, and its body.
struct APIContext {
    let request: HTTPRequest
    let store: CloudStore
    /// The container, environment and database the path names, decoded before the endpoint runs.
    let scope: APIScope
    let authentication: Authentication
    /// The JSON body (an empty object for none); for a scanned body, its members around the
    /// operations or lookups.
    let body: WireValue
    /// The body read without a tree, when its endpoint has a scan and the body has the shape
    /// the scan reads.
    var scanned: BodyScan.Scanned?
    /// The URL clients reach this server at, when configured.
    let publicURL: String?
    /// `Host` values links may be built on besides the listen address's.
    let allowedHosts: [String]

    /// Where the request's access decisions are recorded, for the request log.
    let trace: RequestTrace

    /// Whether numbers in the response go as strings (`numbersAsStrings`; `changes/zone` spells it `numberAsStrings`).
    func numbersAsStrings() throws(WireError) -> Bool {
        try body.first("numbersAsStrings", "numberAsStrings").bool() ?? false
    }

    var container: ContainerIdentifier { scope.container }
    var environment: Environment { scope.environment }

    var caller: Caller { authentication.caller }

    /// The server's base URL for links handed to this client (see ``APIEndpoint/baseURL(of:)``).
    var baseURL: String { request.baseURL(publicURL: publicURL, allowedHosts: allowedHosts) ?? "" }

    /// The client's IP address, for limits per client.
    var clientAddress: String { request.client.host }

    /// The path's database, as the caller sees it; the records it answers carry `downloadURL`s
    /// on this server. In the shared database, the owner the body's `zoneID` names says whose
    /// zone the request reaches.
    func database() throws -> CloudDatabase {
        var database = try store.database(container, environment, scope.database ?? .public, as: caller, trace: trace)
        database.assetBaseURL = baseURL
        if let session = authentication.session { database.assetCredential = .webSession(session.id) }
        database.credential = authentication.loggedCredential
        return database.reaching(owner: try ZoneWire.owner(body["zoneID"]))
    }

    /// The record name of the signed-in user (or of a server-to-server key).
    /// - Throws: AUTHENTICATION_REQUIRED for the world.
    func requireUser() throws -> String {
        guard let user = caller.userRecordName else {
            trace.recordRefusal(
                caller: caller.description, database: scope.database?.rawValue ?? "", rule: "this request needs a signed-in user",
                why: "the caller is not signed in")
            throw CloudStoreError.authenticationRequired("This request needs a signed-in user")
        }
        return user
    }
}
