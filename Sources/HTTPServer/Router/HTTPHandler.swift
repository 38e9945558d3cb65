/// A request handler: runs on the worker pool (it may block, e.g. on SQLite) unless its route
/// is marked to run on the event loop.
public typealias HTTPHandler = @Sendable (HTTPRequest) throws -> HTTPResponse
