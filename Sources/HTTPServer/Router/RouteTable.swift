/// A router compiled into a tree of path segments, shared read-only by every event loop.
/// A class so that resolving a request never copies the tree.
final class RouteTable: Sendable {
    /// What a request resolves to.
    struct Resolution: Sendable {
        /// The handler with its middleware applied.
        var handler: HTTPHandler
        /// Whether the handler may run on the event loop.
        var runsOnEventLoop: Bool
        /// The largest body whose handler may run on the event loop, if only small ones may.
        var eventLoopBodyLimit: Int? = nil
        /// The body limit for the route, if it overrides the server's.
        var maxBodyBytes: Int?
        /// The captured path parameters.
        var parameters: PathParameters
        /// The row of ``operations`` the request is counted in (0, ``RouteOperation/other``, for none).
        var operation = 0
    }

    struct CompiledRoute: Sendable {
        var handler: HTTPHandler
        var options: RouteOptions
        var parameterNames: [String]
        /// The route's row of ``RouteTable/operations``.
        var operation: Int
    }

    struct Endpoint: Sendable {
        var routes: [HTTPMethod: CompiledRoute] = [:]
        /// Wraps the server's own 405 and OPTIONS answers for this path.
        var middleware: [any HTTPMiddleware] = []
        var allow = ""
    }

    /// A tree node while the table is built.
    struct NodeBuilder {
        var children: [String: NodeBuilder] = [:]
        /// At most one `:name` child (an array because a struct cannot hold itself).
        var parameterChild: [NodeBuilder] = []
        var catchAll: Endpoint?
        var endpoint: Endpoint?
    }

    /// A node of the finished tree: a class, so that walking the tree copies nothing, with its
    /// literal children's segments as bytes, compared against the path's bytes in place.
    final class Node: Sendable {
        let children: [(segment: [UInt8], node: Node)]
        let parameterChild: Node?
        let catchAll: Endpoint?
        let endpoint: Endpoint?

        init(_ builder: NodeBuilder) {
            children = builder.children.sorted { $0.key < $1.key }.map { (Array($0.key.utf8), Node($0.value)) }
            parameterChild = builder.parameterChild.first.map(Node.init)
            catchAll = builder.catchAll
            endpoint = builder.endpoint
        }

        /// The literal child whose segment is `bytes`.
        func child(_ bytes: UnsafeBufferPointer<UInt8>) -> Node? {
            for entry in children where entry.segment.count == bytes.count {
                if entry.segment.withUnsafeBufferPointer({ $0.elementsEqual(bytes) }) { return entry.node }
            }
            return nil
        }
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
    /// The operations the routes name, ``RouteOperation/other`` first and the rest in order:
    /// the rows of the server's request counters.
    let operations: [RouteOperation]

    init(_ router: Router) {
        errorResponder = router.errorResponder
        let named = Set(router.definitions.compactMap(\.options.operation)).subtracting([.other]).sorted()
        operations = [.other] + named
        let rows = Dictionary(uniqueKeysWithValues: operations.enumerated().map { ($1, $0) })
        let notFoundHandler = router.notFoundHandler ?? { _ in .error(.notFound) }
        notFound = Resolution(
            handler: router.globalMiddleware.wrapping(notFoundHandler),
            runsOnEventLoop: router.notFoundHandler == nil && router.globalMiddleware.isEmpty,
            maxBodyBytes: nil,
            parameters: PathParameters()
        )
        var root = NodeBuilder()
        for definition in router.definitions {
            RouteTable.insert(
                definition, operation: definition.options.operation.flatMap { rows[$0] } ?? 0,
                middleware: router.globalMiddleware + definition.middleware, into: &root)
        }
        RouteTable.finish(&root)
        var literals: [String: Endpoint] = [:]
        RouteTable.collectLiterals(root, path: "", into: &literals)
        self.root = Node(root)
        literalEndpoints = literals
        var lengths = [Bool](repeating: false, count: (literals.keys.map(\.utf8.count).max() ?? 0) + 1)
        for path in literals.keys { lengths[path.utf8.count] = true }
        literalLengths = lengths
    }

    private static func collectLiterals(_ node: NodeBuilder, path: String, into literals: inout [String: Endpoint]) {
        if let endpoint = node.endpoint { literals[path.isEmpty ? "/" : path] = endpoint }
        for (segment, child) in node.children { collectLiterals(child, path: path + "/" + segment, into: &literals) }
    }

    // MARK: - Building

    private static func insert(
        _ definition: RouteDefinition, operation: Int, middleware: [any HTTPMiddleware], into root: inout NodeBuilder
    ) {
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
        let compiled = CompiledRoute(
            handler: middleware.wrapping(definition.handler), options: definition.options, parameterNames: names, operation: operation)
        insert(into: &root, segments: segments[...], isCatchAll: isCatchAll) { endpoint in
            for method in definition.methods {
                endpoint.routes[method] = compiled
            }
            if endpoint.middleware.isEmpty { endpoint.middleware = middleware }
        }
    }

    private static func insert(
        into node: inout NodeBuilder, segments: ArraySlice<Substring>, isCatchAll: Bool, update: (inout Endpoint) -> Void
    ) {
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
            if node.parameterChild.isEmpty { node.parameterChild.append(NodeBuilder()) }
            insert(into: &node.parameterChild[0], segments: segments.dropFirst(), isCatchAll: isCatchAll, update: update)
        } else {
            var child = node.children[String(segment)] ?? NodeBuilder()
            insert(into: &child, segments: segments.dropFirst(), isCatchAll: isCatchAll, update: update)
            node.children[String(segment)] = child
        }
    }

    /// Computes the `Allow` value of every endpoint.
    private static func finish(_ node: inout NodeBuilder) {
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
        var path = rawPath
        return path.withUTF8 { bytes -> Resolution? in
            let escaped = bytes.contains(UInt8(ascii: "%"))
            if bytes.count < literalLengths.count, literalLengths[bytes.count], !escaped, let endpoint = literalEndpoints[rawPath] {
                return resolve(method: method, endpoint: endpoint, captured: 0) { _ in "" }
            }
            guard escaped else {
                // Every API request comes here: its segments stay bounds into the path's own
                // bytes, kept on the stack, and only captured values become strings.
                let count = Self.segmentCount(bytes)
                return withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: count) { bounds in
                    Self.splitSegments(bytes, into: bounds)
                    return resolve(method: method, Segments(base: bytes, bounds: UnsafeBufferPointer(bounds)))
                }
            }
            guard let decoded = Self.decodedSegments(bytes) else { return nil }
            return decoded.bytes.withUnsafeBufferPointer { base in
                decoded.bounds.withUnsafeBufferPointer { bounds in resolve(method: method, Segments(base: base, bounds: bounds)) }
            }
        }
    }

    /// A path's segments: bounds into bytes that are already decoded.
    private struct Segments {
        let base: UnsafeBufferPointer<UInt8>
        let bounds: UnsafeBufferPointer<Range<Int>>

        func segment(_ index: Int) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: base[bounds[index]]) }

        /// The value captured for segments `indices`: one segment, or the rest of the path
        /// joined with `/` for a `*name`.
        func value(_ indices: Range<Int>) -> String {
            if indices.count == 1 { return String(decoding: segment(indices.lowerBound), as: UTF8.self) }
            var joined: [UInt8] = []
            for index in indices {
                if index > indices.lowerBound { joined.append(UInt8(ascii: "/")) }
                joined.append(contentsOf: segment(index))
            }
            return String(decoding: joined, as: UTF8.self)
        }
    }

    /// How many segments `bytes` has (`/a/b` → 2; `/` and the empty path → 0).
    private static func segmentCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        let start = bytes.first == UInt8(ascii: "/") ? 1 : 0
        guard start < bytes.count else { return 0 }
        var count = 1
        for index in start..<bytes.count where bytes[index] == UInt8(ascii: "/") { count += 1 }
        return count
    }

    /// Writes the bounds of each segment of `bytes` to `bounds`, which has `segmentCount` room.
    private static func splitSegments(_ bytes: UnsafeBufferPointer<UInt8>, into bounds: UnsafeMutableBufferPointer<Range<Int>>) {
        guard !bounds.isEmpty else { return }
        var start = bytes.first == UInt8(ascii: "/") ? 1 : 0
        var segment = 0
        for index in start..<bytes.count where bytes[index] == UInt8(ascii: "/") {
            bounds[segment] = start..<index
            segment += 1
            start = index + 1
        }
        bounds[segment] = start..<bytes.count
    }

    /// The decoded bytes of every segment, one after another, and their bounds; `nil` for a
    /// malformed escape. A segment is decoded on its own, so `%2F` stays inside it.
    private static func decodedSegments(_ bytes: UnsafeBufferPointer<UInt8>) -> (bytes: [UInt8], bounds: [Range<Int>])? {
        let count = segmentCount(bytes)
        var raw = [Range<Int>](repeating: 0..<0, count: count)
        raw.withUnsafeMutableBufferPointer { splitSegments(bytes, into: $0) }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var bounds: [Range<Int>] = []
        bounds.reserveCapacity(count)
        for range in raw {
            let segment = UnsafeBufferPointer(rebasing: bytes[range])
            let start = decoded.count
            if segment.contains(UInt8(ascii: "%")) {
                guard let text = PercentDecoding.decode(Substring(String(decoding: segment, as: UTF8.self))) else { return nil }
                decoded.append(contentsOf: text.utf8)
            } else {
                decoded.append(contentsOf: segment)
            }
            bounds.append(start..<decoded.count)
        }
        return (decoded, bounds)
    }

    /// Matches `segments` against the tree; the captured values are made only for the route found.
    private func resolve(method: HTTPMethod, _ segments: Segments) -> Resolution {
        withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: segments.bounds.count + 1) { captures in
            var captured = 0
            guard let endpoint = Self.match(root, segments, 0, captures, &captured) else { return notFound }
            return resolve(method: method, endpoint: endpoint, captured: captured) { segments.value(captures[$0]) }
        }
    }

    private func resolve(method: HTTPMethod, endpoint: Endpoint, captured: Int, value: (Int) -> String) -> Resolution {
        if let route = endpoint.routes[method] ?? (method == .head ? endpoint.routes[.get] : nil) {
            var parameters = PathParameters(capacity: route.parameterNames.count)
            for (index, name) in route.parameterNames.prefix(captured).enumerated() {
                parameters.append(name: name, value: value(index))
            }
            return Resolution(
                handler: route.handler, runsOnEventLoop: route.options.runsOnEventLoop,
                eventLoopBodyLimit: route.options.eventLoopBodyLimit, maxBodyBytes: route.options.maxBodyBytes, parameters: parameters,
                operation: route.operation
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

    /// The endpoint `segments[index...]` leads to from `node`: literal children first, then a
    /// `:name`, then a `*name`, backtracking as needed. Each value taken is appended to
    /// `captures` as the segments it spans.
    private static func match(
        _ node: Node, _ segments: Segments, _ index: Int, _ captures: UnsafeMutableBufferPointer<Range<Int>>, _ captured: inout Int
    ) -> Endpoint? {
        if index == segments.bounds.count {
            if let endpoint = node.endpoint { return endpoint }
            if let endpoint = node.catchAll {
                captures[captured] = index..<index
                captured += 1
                return endpoint
            }
            return nil
        }
        let segment = segments.segment(index)
        if let child = node.child(segment), let found = match(child, segments, index + 1, captures, &captured) {
            return found
        }
        if let child = node.parameterChild, !segment.isEmpty {
            captures[captured] = index..<index + 1
            captured += 1
            if let found = match(child, segments, index + 1, captures, &captured) { return found }
            captured -= 1
        }
        if let endpoint = node.catchAll {
            captures[captured] = index..<segments.bounds.count
            captured += 1
            return endpoint
        }
        return nil
    }
}
