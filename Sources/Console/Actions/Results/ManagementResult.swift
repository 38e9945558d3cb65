import CloudKitWire
import CloudStore

/// What an admin action answers: a typed value the pages render and the command line prints,
/// with the one JSON form the management API sends and the one reading of it that the remote
/// command line uses.
public protocol ManagementResult: Sendable {
    /// The answer as the management API sends it.
    var json: JSONValue { get }
    /// The answer read back from the management API's JSON.
    /// - Throws: ``MalformedAnswer`` when a member is missing or of the wrong kind.
    init(json: JSONValue) throws
}

/// An answer from the management API that does not have the shape its action answers.
public struct MalformedAnswer: Error, CustomStringConvertible {
    /// What is wrong, naming the member.
    public let description: String
}

/// The members of a JSON object in an answer, each read as the kind it must be.
struct AnswerFields {
    private let object: JSONObject

    /// The object `value` must be.
    init(_ value: JSONValue) throws {
        guard let object = value.objectValue else { throw MalformedAnswer(description: "The server's answer is not a JSON object") }
        self.object = object
    }

    private func member<T>(_ key: String, _ kind: String, _ read: (JSONValue) -> T?) throws -> T {
        guard let value = object[key], let read = read(value) else {
            throw MalformedAnswer(description: "The server's answer has no \(kind) \"\(key)\"")
        }
        return read
    }

    /// A string member.
    func string(_ key: String) throws -> String { try member(key, "string", \.stringValue) }

    /// A string member that may be null or absent.
    func optionalString(_ key: String) throws -> String? {
        guard let value = object[key], !value.isNull else { return nil }
        return try string(key)
    }

    /// An integer member.
    func int64(_ key: String) throws -> Int64 { try member(key, "integer", { $0.int64Value(acceptingNumericString: false) }) }

    /// An integer member that may be null or absent.
    func optionalInt64(_ key: String) throws -> Int64? {
        guard let value = object[key], !value.isNull else { return nil }
        return try int64(key)
    }

    /// A number member.
    func double(_ key: String) throws -> Double { try member(key, "number", \.doubleValue) }

    /// A boolean member.
    func bool(_ key: String) throws -> Bool { try member(key, "boolean", \.boolValue) }

    /// An array member, each element read by `read`.
    func array<T>(_ key: String, _ read: (JSONValue) throws -> T) throws -> [T] { try member(key, "array", \.arrayValue).map(read) }

    /// An array of strings.
    func strings(_ key: String) throws -> [String] {
        try array(key) { value in
            guard let string = value.stringValue else {
                throw MalformedAnswer(description: "The server's answer has a non-string in \"\(key)\"")
            }
            return string
        }
    }

    /// An environment named by a string member.
    func environment(_ key: String) throws -> Environment {
        let name = try string(key)
        guard let environment = Environment(rawValue: name) else {
            throw MalformedAnswer(description: "The server's answer names no environment '\(name)'")
        }
        return environment
    }

    /// A member of any kind, which must be present.
    func value(_ key: String) throws -> JSONValue { try member(key, "member", { $0 }) }
}

/// The credential a revocation revoked.
public struct RevokedView: ManagementResult, Equatable {
    /// The token or key ID revoked.
    public var revoked: String

    init(_ revoked: String) { self.revoked = revoked }

    public var json: JSONValue { ["revoked": .string(revoked)] }

    public init(json: JSONValue) throws { revoked = try AnswerFields(json).string("revoked") }
}
