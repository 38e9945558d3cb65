import Glibc

/// A failure to start or run the server.
public struct HTTPServerError: Error, CustomStringConvertible, Sendable {
    /// What failed, e.g. "bind".
    public var operation: String
    /// The errno value, or 0.
    public var code: Int32
    /// More about it.
    public var message: String

    /// Creates an error.
    public init(operation: String, code: Int32 = 0, message: String) {
        self.operation = operation
        self.code = code
        self.message = message
    }

    static func system(_ operation: String, _ code: Int32) -> HTTPServerError {
        HTTPServerError(operation: operation, code: code, message: String(cString: strerror(code)))
    }

    public var description: String {
        code == 0 ? "\(operation): \(message)" : "\(operation) failed (errno \(code)): \(message)"
    }
}
