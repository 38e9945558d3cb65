import Foundation
import HTTPServer
import TestSupport
import Testing

@testable import Console

/// Keeps the management routes in one table and `Public/openapi-management.json` true to it: the
/// router serves exactly the table's routes, the document describes each with exactly its methods
/// and path parameters and nothing else, every reference resolves, and the data API's document
/// points at it.
@Suite struct ManagementOpenAPIDocumentTests {
    static let methodKeys: Set<String> = ["get", "put", "post", "delete", "patch"]

    static func document(_ name: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: Repository.root + "/Public/" + name))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The mounted management routes as OpenAPI paths (`/admin/v1/containers/{container}`) and lower-case methods.
    static func mountedRoutes() throws -> [String: Set<String>] {
        var routes: [String: Set<String>] = [:]
        for route in try ConsoleTestServer(createContainer: false).routes where route.pattern.hasPrefix("/admin/v1/") {
            let path = route.pattern.split(separator: "/", omittingEmptySubsequences: false)
                .map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
            routes[path, default: []].formUnion(route.methods.filter { $0 != .head }.map { $0.rawValue.lowercased() })
        }
        return routes
    }

    /// The routes of ``ManagementAPI/routes``, in the form of ``mountedRoutes()``.
    static func tableRoutes() -> [String: Set<String>] {
        var routes: [String: Set<String>] = [:]
        for route in ManagementAPI.routes {
            let path = ("/admin/v1" + route.pattern).split(separator: "/", omittingEmptySubsequences: false)
                .map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
            routes[path, default: []].insert(route.method.rawValue.lowercased())
        }
        return routes
    }

    @Test func theRouterServesExactlyTheTable() throws {
        let table = Self.tableRoutes()
        #expect(table.count >= 20)
        #expect(try Self.mountedRoutes() == table)
        let keys = ManagementAPI.routes.map { "\($0.method.rawValue) \($0.pattern)" }
        #expect(Set(keys).count == keys.count, "a route is declared twice")
        #expect(ManagementAPI.routes.allSatisfy { !$0.operation.isEmpty })
    }

    /// With ``theRouterServesExactlyTheTable()``, the document describes exactly the table's routes.
    @Test func describesExactlyTheMountedRoutes() throws {
        let document = try Self.document("openapi-management.json")
        #expect(document["openapi"] as? String == "3.1.0")
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let mounted = try Self.mountedRoutes()
        #expect(mounted.count >= 20)
        for (path, methods) in mounted {
            let item = try #require(paths[path], "\(path) is missing from openapi-management.json")
            #expect(Set(item.keys.filter(Self.methodKeys.contains)) == methods, "\(path)")
        }
        for path in paths.keys { #expect(mounted[path] != nil, "\(path) is described but not routed") }
    }

    @Test func everyOperationIsSecuredHasItsPathParametersAndResolves() throws {
        let document = try Self.document("openapi-management.json")
        let components = try #require(document["components"] as? [String: Any])
        let schemes = try #require(components["securitySchemes"] as? [String: [String: Any]])
        #expect(schemes["managementToken"]?["scheme"] as? String == "bearer")
        #expect((document["security"] as? [[String: Any]])?.first?["managementToken"] != nil)
        let shared = components["parameters"] as? [String: [String: Any]] ?? [:]
        for (path, item) in try #require(document["paths"] as? [String: [String: Any]]) {
            let template = Set(path.split(separator: "/").filter { $0.hasPrefix("{") }.map { String($0.dropFirst().dropLast()) })
            for method in item.keys where Self.methodKeys.contains(method) {
                let operation = try #require(item[method] as? [String: Any])
                let parameters = (operation["parameters"] as? [[String: Any]] ?? []).map { parameter in
                    (parameter["$ref"] as? String).flatMap { shared[String($0.split(separator: "/").last ?? "")] } ?? parameter
                }
                let inPath = Set(parameters.filter { $0["in"] as? String == "path" }.compactMap { $0["name"] as? String })
                #expect(inPath == template, "\(method) \(path)")
                let responses = try #require(operation["responses"] as? [String: Any], "\(method) \(path)")
                #expect(responses["401"] != nil && responses["400"] != nil, "\(method) \(path) documents its refusals")
            }
        }
        #expect(!OpenAPIReferences.all(in: document).isEmpty)
        #expect(OpenAPIReferences.unresolved(in: document) == [])
    }

    @Test func theDataAPIDocumentLinksToIt() throws {
        let link = try #require(try Self.document("openapi.json")["externalDocs"] as? [String: Any])
        #expect(link["url"] as? String == "/admin/v1/openapi.json")
    }
}
