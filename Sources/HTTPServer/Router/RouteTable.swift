/// A router compiled into a tree of path segments, shared read-only by every event loop.
/// A class so that resolving a request never copies the tree.
final class RouteTable: Sendable {
    /// What a request resolves to.
    struct Resolution: Sendable {
        /// The handler with its middleware applied.
        var handler: HTTPHandler
        /// Whether the handler may run on the event loop.
        var runsOnEventLoop: Bool
        /// The body limit for the route, if it overrides the server's.
        var maxBodyBytes: Int?
        /// The captured path parameters.
        var parameters: PathParameters
    }

    struct CompiledRoute: Sendable {
        var handler: HTTPHandler
        var options: RouteOptions
        var parameterNames: [String]
    }

    struct Endpoint: Sendable {
        var routes: [HTTPMethod: CompiledRoute] = [:]
        /// Wraps the server's own 405 and OPTIONS answers for this path.
        var middleware: [any HTTPMiddleware] = []
        var allow = ""
    }

    struct Node: Sendable {
        var children: [String: Node] = [:]
        /// At most one `:name` child (an array because a struct cannot hold itself).
        var parameterChild: [Node] = []
        var catchAll: Endpoint?
        var endpoint: Endpoint?
    }

    private let root: Node
    /// Endpoints of patterns made only of literal segments, by path: most requests are found
    /// here with one lookup and no splitting.
    private let literalEndpoints: [String: Endpoint]
    /// Whether some literal pattern is this many bytes long: a path of another length skips
    /// the hash of the whole path (an API path, with its container and database, never hits).
    private let literalLengths: [Bool]
    private let notFound: Resolution
    /// Renders errors the server makes itself.
    let errorResponder: ServerErrorResponder?

    init(_ router: Router) {
        errorResponder = router.errorResponder
        let notFoundHandler = router.notFoundHandler ?? { _ in .error(.notFound) }
        notFound = Resolution(
            handler: router.globalMiddleware.wrapping(notFoundHandler),
            runsOnEventLoop: router.notFoundHandler == nil && router.globalMiddleware.isEmpty,
            maxBodyBytes: nil,
            parameters: PathParameters()
        )
        var root = Node()
        for definition in router.definitions {
            RouteTable.insert(definition, middleware: router.globalMiddleware + definition.middleware, into: &root)
        }
        RouteTable.finish(&root)
        var literals: [String: Endpoint] = [:]
        RouteTable.collectLiterals(root, path: "", into: &literals)
        self.root = root
        literalEndpoints = literals
        var lengths = [Bool](repeating: false, count: (literals.keys.map(\.utf8.count).max() ?? 0) + 1)
        for path in literals.keys { lengths[path.utf8.count] = true }
        literalLengths = lengths
    }

    private static func collectLiterals(_ node: Node, path: String, into literals: inout [String: Endpoint]) {
        if let endpoint = node.endpoint { literals[path.isEmpty ? "/" : path] = endpoint }
        for (segment, child) in node.children { collectLiterals(child, path: path + "/" + segment, into: &literals) }
    }

    // MARK: - Building

    private static func insert(_ definition: RouteDefinition, middleware: [any HTTPMiddleware], into root: inout Node) {
        let segments = RouteTable.patternSegments(definition.pattern)
        var names: [String] = []
        var isCatchAll = false
        for (index, segment) in segments.enumerated() {
            if segment.hasPrefix(":") {
                names.append(String(segment.dropFirst()))
            } else if segment.hasPrefix("*") {
                precondition(index == segments.count - 1, "a *name segment must be last in \(definition.pattern)")
                names.append(String(segment.dropFirst()))
                isCatchAll = true
            }
        }
        let compiled = CompiledRoute(handler: middleware.wrapping(definition.handler), options: definition.options, parameterNames: names)
        insert(into: &root, segments: segments[...], isCatchAll: isCatchAll) { endpoint in
            for method in definition.methods {
                endpoint.routes[method] = compiled
            }
            if endpoint.middleware.isEmpty { endpoint.middleware = middleware }
        }
    }

    private static func insert(into node: inout Node, segments: ArraySlice<Substring>, isCatchAll: Bool, update: (inout Endpoint) -> Void) {
        guard let segment = segments.first else {
            var endpoint = node.endpoint ?? Endpoint()
            update(&endpoint)
            node.endpoint = endpoint
            return
        }
        if segment.hasPrefix("*") {
            var endpoint = node.catchAll ?? Endpoint()
            update(&endpoint)
            node.catchAll = endpoint
        } else if segment.hasPrefix(":") {
            if node.parameterChild.isEmpty { node.parameterChild.append(Node()) }
            insert(into: &node.parameterChild[0], segments: segments.dropFirst(), isCatchAll: isCatchAll, update: update)
        } else {
            var child = node.children[String(segment)] ?? Node()
            insert(into: &child, segments: segments.dropFirst(), isCatchAll: isCatchAll, update: update)
            node.children[String(segment)] = child
        }
    }

    /// Computes the `Allow` value of every endpoint.
    private static func finish(_ node: inout Node) {
        if var endpoint = node.endpoint {
            endpoint.allow = allowValue(endpoint)
            node.endpoint = endpoint
        }
        if var endpoint = node.catchAll {
            endpoint.allow = allowValue(endpoint)
            node.catchAll = endpoint
        }
        for key in node.children.keys { finish(&node.children[key]!) }
        for index in node.parameterChild.indices { finish(&node.parameterChild[index]) }
    }

    private static func allowValue(_ endpoint: Endpoint) -> String {
        var methods = Set(endpoint.routes.keys.map(\.rawValue))
        if methods.contains("GET") { methods.insert("HEAD") }
        methods.insert("OPTIONS")
        return methods.sorted().joined(separator: ", ")
    }

    static func patternSegments(_ pattern: String) -> [Substring] {
        let trimmed = pattern.hasPrefix("/") ? pattern.dropFirst() : Substring(pattern)
        if trimmed.isEmpty { return [] }
        return trimmed.split(separator: "/", omittingEmptySubsequences: false)
    }

    // MARK: - Lookup

    /// Resolves a request; `nil` if a path segment has a malformed percent escape.
    func resolve(method: HTTPMethod, rawPath: String) -> Resolution? {
        let length = rawPath.utf8.count
        if length < literalLengths.count, literalLengths[length], let endpoint = literalEndpoints[rawPath],
            !rawPath.utf8.contains(UInt8(ascii: "%"))
        {
            return resolve(method: method, endpoint: endpoint, values: [])
        }
        guard let segments = Self.pathSegments(rawPath) else { return nil }
        var values: [String] = []
        guard let endpoint = RouteTable.match(root, segments, 0, &values) else { return notFound }
        return resolve(method: method, endpoint: endpoint, values: values)
    }

    /// The decoded segments of a path (`/a/b%20c` → `a`, `b c`); `nil` for a malformed escape.
    /// Scanned on the path's bytes in place: every API request is routed through here.
    static func pathSegments(_ rawPath: String) -> [String]? {
        var path = rawPath
        return path.withUTF8 { bytes -> [String]? in
            var start = bytes.first == UInt8(ascii: "/") ? 1 : 0
            guard start < bytes.count else { return [] }
            var segments: [String] = []
            segments.reserveCapacity(8)
            while true {
                var end = start
                var escaped = false
                while end < bytes.count, bytes[end] != UInt8(ascii: "/") {
                    if bytes[end] == UInt8(ascii: "%") { escaped = true }
                    end += 1
                }
                let raw = UnsafeBufferPointer(rebasing: bytes[start..<end])
                if escaped {
                    guard let decoded = PercentDecoding.decode(Substring(String(decoding: raw, as: UTF8.self))) else { return nil }
                    segments.append(decoded)
                } else {
                    segments.append(String(decoding: raw, as: UTF8.self))
                }
                guard end < bytes.count else { return segments }
                start = end + 1
            }
        }
    }

    private func resolve(method: HTTPMethod, endpoint: Endpoint, values: [String]) -> Resolution {
        if let route = endpoint.routes[method] ?? (method == .head ? endpoint.routes[.get] : nil) {
            var parameters = PathParameters()
            for (name, value) in zip(route.parameterNames, values) { parameters.append(name: name, value: value) }
            return Resolution(
                handler: route.handler, runsOnEventLoop: route.options.runsOnEventLoop,
                maxBodyBytes: route.options.maxBodyBytes, parameters: parameters
            )
        }
        let allow = endpoint.allow
        let answer: HTTPHandler
        if method == .options {
            answer = { _ in HTTPResponse(status: .noContent, headers: ["Allow": allow]) }
        } else {
            let responder = errorResponder
            answer = { request in
                let error = ServerError(
                    status: .methodNotAllowed, message: "\(request.method) is not allowed here; use \(allow)",
                    requestID: request.requestID, rawPath: request.rawPath)
                var response = responder?(error) ?? .error(.methodNotAllowed)
                response.headers["Allow"] = allow
                return response
            }
        }
        return Resolution(
            handler: endpoint.middleware.wrapping(answer),
            runsOnEventLoop: endpoint.middleware.isEmpty,
            maxBodyBytes: nil,
            parameters: PathParameters()
        )
    }

    private static func match(_ node: Node, _ segments: [String], _ index: Int, _ values: inout [String]) -> Endpoint? {
        if index == segments.count {
            if let endpoint = node.endpoint { return endpoint }
            if let endpoint = node.catchAll {
                values.append("")
                return endpoint
            }
            return nil
        }
        let segment = segments[index]
        if let child = node.children[segment], let found = match(child, segments, index + 1, &values) {
            return found
        }
        if let child = node.parameterChild.first, !segment.isEmpty {
            values.append(segment)
            if let found = match(child, segments, index + 1, &values) { return found }
            values.removeLast()
        }
        if let endpoint = node.catchAll {
            values.append(segments[index...].joined(separator: "/"))
            return endpoint
        }
        return nil
    }
}
