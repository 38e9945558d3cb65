import CloudKitWire
import Foundation
import HTTPServer
import TestSupport
import Testing

@testable import WebServices

/// Keeps `Public/openapi.json` true to the API's route table: every documented route is
/// described with exactly its methods, and the document describes nothing the server does not answer.
@Suite struct OpenAPIDocumentTests {
    static let documentURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Public/openapi.json")

    /// Paths the document describes that are not API routes: served by `cumulus serve` itself.
    static let serverPaths: [String: Set<String>] = ["/healthz": ["get"], "/openapi.json": ["get"]]

    static let methodKeys: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    static func document() throws -> [String: Any] {
        let data = try Data(contentsOf: documentURL)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func paths() throws -> [String: [String: Any]] {
        try #require(try document()["paths"] as? [String: [String: Any]])
    }

    /// `/database/1/:container/…` as OpenAPI writes it: `/database/1/{container}/…`.
    static func openAPIPath(_ pattern: String) -> String {
        pattern.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            segment.hasPrefix(":") ? "{\(segment.dropFirst())}" : String(segment)
        }.joined(separator: "/")
    }

    /// The table's documented routes as OpenAPI paths, with their methods gathered by path (an
    /// upload URL's `POST` and `OPTIONS` are rows of their own).
    static var routedPaths: [String: Set<String>] {
        WebServices.routeTable.filter(\.isDocumented).reduce(into: [:]) { paths, route in
            paths[openAPIPath(route.pattern), default: []].formUnion(route.methods.map { $0.rawValue.lowercased() })
        }
    }

    static func methods(of item: [String: Any]) -> Set<String> {
        Set(item.keys.filter { methodKeys.contains($0) })
    }

    @Test func isOpenAPI31() throws {
        let document = try Self.document()
        #expect(document["openapi"] as? String == "3.1.0")
        let info = try #require(document["info"] as? [String: Any])
        #expect((info["title"] as? String)?.isEmpty == false)
    }

    @Test func everyRouteIsDescribedWithExactlyItsMethods() throws {
        let paths = try Self.paths()
        #expect(Self.routedPaths.count >= 33)
        for (path, expected) in Self.routedPaths {
            let item = try #require(paths[path], "\(path) is missing from openapi.json")
            #expect(Self.methods(of: item) == expected, "\(path)")
        }
    }

    @Test func describesNoPathTheServerDoesNotRoute() throws {
        let routed = Set(Self.routedPaths.keys)
        for (path, item) in try Self.paths() {
            if let methods = Self.serverPaths[path] {
                #expect(Self.methods(of: item) == methods, "\(path)")
            } else {
                #expect(routed.contains(path), "\(path) is in openapi.json but is no route of WebServices.routeTable")
            }
        }
        #expect(Self.routedPaths.count + Self.serverPaths.count == (try Self.paths()).count)
    }

    @Test func healthAndDocumentAreDescribed() throws {
        let paths = try Self.paths()
        for (path, methods) in Self.serverPaths {
            let item = try #require(paths[path], "\(path) is missing")
            #expect(Self.methods(of: item) == methods)
        }
    }

    /// Each `{name}` of a path has a required path parameter of that name, and no other path parameter is declared.
    @Test func pathParametersMatchTheTemplates() throws {
        let document = try Self.document()
        let components = try #require(document["components"] as? [String: Any])
        let shared = components["parameters"] as? [String: [String: Any]] ?? [:]
        func resolve(_ parameter: [String: Any]) throws -> [String: Any] {
            guard let ref = parameter["$ref"] as? String else { return parameter }
            let name = String(try #require(ref.split(separator: "/").last))
            return try #require(shared[name], "unresolved \(ref)")
        }
        for (path, item) in try Self.paths() {
            let template = Set(path.split(separator: "/").filter { $0.hasPrefix("{") }.map { String($0.dropFirst().dropLast()) })
            let common = try (item["parameters"] as? [[String: Any]] ?? []).map(resolve)
            for method in Self.methods(of: item) {
                let operation = try #require(item[method] as? [String: Any])
                let own = try (operation["parameters"] as? [[String: Any]] ?? []).map(resolve)
                let inPath = (common + own).filter { $0["in"] as? String == "path" }
                #expect(Set(inPath.compactMap { $0["name"] as? String }) == template, "\(method) \(path)")
                #expect(inPath.allSatisfy { $0["required"] as? Bool == true }, "\(method) \(path)")
                #expect(operation["responses"] is [String: Any], "\(method) \(path) has no responses")
            }
        }
    }

    /// Every `$ref` points at something the document defines.
    @Test func everyReferenceResolves() throws {
        let document = try Self.document()
        #expect(!OpenAPIReferences.all(in: document).isEmpty)
        #expect(OpenAPIReferences.unresolved(in: document) == [])
    }

    /// The statuses CloudKit documents for request-level errors are described for every API operation.
    @Test func apiOperationsDescribeCloudKitErrorStatuses() throws {
        let statuses: Set<String> = ["400", "401", "403", "404", "409", "412", "413", "421", "429", "500", "503"]
        for route in WebServices.routeTable {
            guard case .endpoint = route.handler else { continue }
            let item = try #require(try Self.paths()[Self.openAPIPath(route.pattern)])
            for method in route.methods {
                let operation = try #require(item[method.rawValue.lowercased()] as? [String: Any])
                let responses = try #require(operation["responses"] as? [String: Any])
                #expect(statuses.isSubset(of: Set(responses.keys)), "\(method) \(route.pattern)")
                #expect(responses["200"] != nil)
            }
        }
    }
}
