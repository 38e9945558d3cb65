import CloudKitWire
import CloudStore
import HTTPServer

/// One API request as an endpoint sees it: where it goes, who sends it, and its body.
struct APIContext {
    let request: HTTPRequest
    let store: CloudStore
    let container: ContainerIdentifier
    let environment: Environment
    /// The database of the path; `nil` on paths without one (`tokens/create`).
    let scope: DatabaseScope?
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

    /// Whether numbers in the response go as strings (`numbersAsStrings`; `changes/zone` spells it `numberAsStrings`).
    func numbersAsStrings() throws(WireError) -> Bool {
        try body.first("numbersAsStrings", "numberAsStrings").bool() ?? false
    }

    var caller: Caller { authentication.caller }

    /// The client's IP address, for limits per client.
    var clientAddress: String { request.remoteHost }

    /// The path's database, as the caller sees it; the records it answers carry `downloadURL`s
    /// on this server. In the shared database, the owner the body's `zoneID` names says whose
    /// zone the request reaches.
    func database() throws -> CloudDatabase {
        var database = try store.database(container, environment, scope ?? .public, as: caller)
        database.assetBaseURL = request.baseURL(publicURL: publicURL, allowedHosts: allowedHosts) ?? ""
        if let session = authentication.session { database.assetCredential = .webSession(session.id) }
        return database.reaching(owner: try ZoneWire.owner(body["zoneID"]))
    }

    /// The record name of the signed-in user (or of a server-to-server key).
    /// - Throws: AUTHENTICATION_REQUIRED for the world.
    func requireUser() throws -> String {
        guard let user = caller.userRecordName else {
            throw CloudStoreError.authenticationRequired("This request needs a signed-in user")
        }
        return user
    }
}
