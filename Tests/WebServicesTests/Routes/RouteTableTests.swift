import CloudStore
import HTTPServer
import TestSupport
import Testing

@testable import WebServices

/// The API's routes are declared once, in ``WebServices/routeTable``: the router serves exactly
/// its rows, and the names the request log keeps come from it unchanged.
@Suite struct RouteTableTests {
    /// The routes a router holds once the API is mounted on it, as `METHOD pattern` lines.
    static func mounted() throws -> [String] {
        let temporary = try TemporaryStore(container: "iCloud.com.example.Routes")
        var router = Router()
        WebServices(store: temporary.store, configuration: WebServicesConfiguration(signInURL: { base, _, _ in base }))
            .mount(on: &router)
        return router.routes.flatMap { route in route.methods.map { "\($0.rawValue) \(route.pattern)" } }
    }

    @Test func theRouterServesExactlyTheRowsOfTheTable() throws {
        let table = WebServices.routeTable.flatMap { route in route.methods.map { "\($0.rawValue) \(route.pattern)" } }
        #expect(try Self.mounted() == table)
        #expect(Set(table).count == table.count, "a method and pattern is served by one row")
        #expect(table.contains("POST /database/1/:container/:environment/:database/records/modify"))
        #expect(table.contains("GET /assets/1/download/:ticket/:file"))
    }

    /// The request log's names, as operators filter and export them: changing one is a change of
    /// stored data.
    @Test func operationNamesAreTheRequestLogs() {
        let named = WebServices.routeTable.compactMap { route in route.operation.map { "\(route.pattern) \($0)" } }
        #expect(named.count == 31)
        for route in WebServices.routeTable {
            guard case .endpoint = route.handler, let operation = route.operation else { continue }
            // The operation is what follows the path's container, environment and database.
            let tail = route.pattern.split(separator: "/").drop { $0 != ":environment" }.dropFirst().drop { $0 == ":database" }
            #expect(tail.joined(separator: "/") == operation, "\(route.pattern)")
        }
        let files = WebServices.routeTable.filter { if case .ownCredential = $0.handler { true } else { false } }
        #expect(files.compactMap(\.operation) == ["assets/file/upload", "assets/file/download"])
        let catchAlls = WebServices.routeTable.filter { if case .notFound = $0.handler { true } else { false } }
        #expect(catchAlls.map(\.pattern) == ["/database/*rest", "/device/*rest"])
        #expect(catchAlls.allSatisfy { $0.operation == nil && !$0.isDocumented })
    }

    /// Only `records/modify`, which hands its write on, may run on the event loop, and only the
    /// upload URL takes a body the size of an asset.
    @Test func optionsAreTheRowsOwn() {
        let configuration = WebServicesConfiguration(signInURL: { base, _, _ in base })
        let onLoop = WebServices.routeTable.filter { $0.eventLoopBodyLimit != nil }
        #expect(onLoop.map(\.operation) == ["records/modify"])
        #expect(onLoop.first?.options(configuration, maximumAssetBytes: 9).eventLoopBodyLimit == 8 * 1024)
        let uploads = WebServices.routeTable.filter { $0.options(configuration, maximumAssetBytes: 9).maxBodyBytes == 9 }
        #expect(uploads.map(\.pattern) == ["/assets/1/upload/:ticket"])
        #expect(uploads.map(\.methods) == [[.post]])
        let query = WebServices.routeTable.first { $0.operation == "records/query" }
        #expect(query?.options(configuration, maximumAssetBytes: 9).maxBodyBytes == configuration.maxRequestBytes)
    }

    @Test func credentialPathsAreTheTicketRoutes() {
        #expect(WebServices.credentialPathPrefixes == ["/assets/1/upload/", "/assets/1/download/"])
        #expect(WebServices.assetUploadRoute.link(base: "https://c.example", ["ticket": "t1"]) == "https://c.example/assets/1/upload/t1")
        #expect(CourierEndpoint.url(base: "http://h", token: "a b") == "http://h/webcourier/1/aps?tok=a%20b&ttl=43200")
    }
}
