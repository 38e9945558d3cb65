import TestSupport
import Testing

@testable import HTTPServer

/// The route table matches paths on their bytes; it must pick the same route, with the same
/// captured values, as the plain reading of the rules on decoded string segments.
@Suite struct RoutingTests {
    private static let patterns = [
        "/", "/healthz", "/a/b", "/a/:x", "/a/:x/c", "/a/b/c/d", "/a/:x/c/e", "/a/*rest", "/files/*rest",
        "/:p/:q/z", "/:p/lookup", "/database/1/:container/:environment/:database/records/lookup",
        "/database/1/:container/*rest", "/é/:x",
    ]

    /// What a path resolves to: `nil` for a malformed escape, `"404"` when nothing matches,
    /// else the pattern with its captured values.
    private static func resolved(_ table: RouteTable, _ path: String) -> String? {
        guard let resolution = table.resolve(method: .get, rawPath: path) else { return nil }
        guard let response = try? resolution.handler(HTTPRequest(method: .get, target: path)), case .bytes(let body) = response.body,
            response.status == .ok
        else { return "404" }
        return String(decoding: body, as: UTF8.self) + " " + resolution.parameters.map { "\($0.name)=\($0.value)" }.joined(separator: " ")
    }

    @Test(arguments: 0..<3) func routesAgreeWithThePlainReading(seed: UInt64) {
        var router = Router()
        for pattern in Self.patterns { router.get(pattern) { _ in .text(pattern) } }
        let table = RouteTable(router)
        let reference = Reference(Self.patterns)
        var generator = SeededGenerator(seed: seed)
        let pieces = [
            "a", "b", "c", "d", "e", "z", "files", "database", "1", "records", "lookup", "healthz", "iCloud.com.example.app",
            "x%20y", "%2F", "%zz", "%4", "", "é", "%C3%A9", "%61", "development", "public", "a/b/c", "a/x", "c/e", "c/d",
        ]
        var seen = Set<String>()
        for _ in 0..<3_000 {
            let segments = (0..<Int.random(in: 0...8, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
            let leading = Int.random(in: 0..<10, using: &generator) == 0 ? "" : "/"
            let path = leading + segments.joined(separator: "/")
            let expected = reference.resolve(path)
            #expect(Self.resolved(table, path) == expected, "\(path)")
            if let expected { seen.insert(String(expected.prefix { $0 != " " })) }
        }
        // The corpus reaches every kind of route, the malformed path and no route at all.
        #expect(
            seen.isSuperset(of: ["/a/:x/c/e", "/a/*rest", "/files/*rest", "/:p/:q/z", "/database/1/:container/*rest", "404"]), "\(seen)")
    }

    @Test func capturesDecodedValuesAndTheRestOfThePath() {
        var router = Router()
        for pattern in Self.patterns { router.get(pattern) { _ in .text(pattern) } }
        let table = RouteTable(router)
        #expect(
            Self.resolved(table, "/database/1/iCloud.com.x/development/public/records/lookup")
                == "/database/1/:container/:environment/:database/records/lookup container=iCloud.com.x environment=development database=public"
        )
        #expect(Self.resolved(table, "/a/b/c/e") == "/a/:x/c/e x=b")
        #expect(Self.resolved(table, "/a/b%2Fc") == "/a/:x x=b/c")
        #expect(Self.resolved(table, "/files/a/b%20c/d.txt") == "/files/*rest rest=a/b c/d.txt")
        #expect(Self.resolved(table, "/files") == "/files/*rest rest=")
        #expect(Self.resolved(table, "/%C3%A9/1") == "/é/:x x=1")
        #expect(Self.resolved(table, "/a/") == "/a/*rest rest=")
        #expect(Self.resolved(table, "/healthz") == "/healthz ")
        #expect(Self.resolved(table, "/") == "/ ")
        #expect(Self.resolved(table, "/bad%zz") == nil)
    }

    /// The rules read plainly: split the path on `/`, decode each segment, then at each node try
    /// the literal child, then the `:name` child (never on an empty segment), then the `*name`.
    private struct Reference {
        final class Node {
            var children: [String: Node] = [:]
            var parameter: Node?
            var catchAll: String?
            var endpoint: String?
        }

        let root = Node()

        init(_ patterns: [String]) {
            for pattern in patterns {
                var node = root
                var isCatchAll = false
                for segment in pattern.split(separator: "/") {
                    if segment.hasPrefix("*") {
                        node.catchAll = pattern
                        isCatchAll = true
                    } else if segment.hasPrefix(":") {
                        if node.parameter == nil { node.parameter = Node() }
                        node = node.parameter!
                    } else {
                        if node.children[String(segment)] == nil { node.children[String(segment)] = Node() }
                        node = node.children[String(segment)]!
                    }
                }
                if !isCatchAll { node.endpoint = pattern }
            }
        }

        func resolve(_ path: String) -> String? {
            let trimmed = path.hasPrefix("/") ? path.dropFirst() : Substring(path)
            var segments: [String] = []
            if !trimmed.isEmpty {
                for raw in trimmed.split(separator: "/", omittingEmptySubsequences: false) {
                    guard let decoded = PercentDecoding.decode(raw) else { return nil }
                    segments.append(decoded)
                }
            }
            var values: [String] = []
            guard let pattern = match(root, segments[...], &values) else { return "404" }
            let names = pattern.split(separator: "/").filter { $0.hasPrefix(":") || $0.hasPrefix("*") }.map { $0.dropFirst() }
            return pattern + " " + zip(names, values).map { "\($0)=\($1)" }.joined(separator: " ")
        }

        private func match(_ node: Node, _ segments: ArraySlice<String>, _ values: inout [String]) -> String? {
            guard let segment = segments.first else {
                if let endpoint = node.endpoint { return endpoint }
                if let pattern = node.catchAll {
                    values.append("")
                    return pattern
                }
                return nil
            }
            if let child = node.children[segment], let found = match(child, segments.dropFirst(), &values) { return found }
            if let child = node.parameter, !segment.isEmpty {
                values.append(segment)
                if let found = match(child, segments.dropFirst(), &values) { return found }
                values.removeLast()
            }
            if let pattern = node.catchAll {
                values.append(segments.joined(separator: "/"))
                return pattern
            }
            return nil
        }
    }
}
