import CloudKitWire
import CloudStore
import HTTPServer

/// What a management request carries: path parameters, query parameters and a JSON object
/// body, read with errors that name what is missing or malformed.
struct ManagementInput {
    let request: HTTPRequest
    private let object: JSONObject
    /// The actions, which know which containers exist.
    private let actions: ManagementActions

    /// The body as JSON: an empty object when there was none.
    var body: JSONValue { .object(object) }

    /// Reads `request`; a body, when there is one, must be a JSON object.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` for a body that is not one.
    init(_ request: HTTPRequest, jsonBody: Bool, actions: ManagementActions) throws {
        self.request = request
        self.actions = actions
        guard jsonBody, !request.body.isEmpty else {
            object = JSONObject()
            return
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(request.body)
        } catch {
            throw CloudStoreError.badRequest("The request body is not valid JSON: \(error)")
        }
        guard case .object(let object) = value else {
            throw CloudStoreError.badRequest("The request body must be a JSON object")
        }
        self.object = object
    }

    /// A path parameter the route declares.
    func path(_ name: String) -> String { request.pathParameters[name] ?? "" }

    /// The container the path names (`:container`), which must exist.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` for a malformed identifier,
    ///   ``CloudStoreError/notFound(_:)`` when there is no such container.
    func container() throws -> ContainerIdentifier { try actions.existingContainer(path("container")) }

    /// Checks that the users a request names exist in `container`, so that an unknown user is
    /// answered (404) before a malformed environment or database (400): the order these routes
    /// answered in before their inputs were typed.
    /// - Throws: ``CloudStoreError/notFound(_:)`` for the first user that does not exist.
    func requireUsers(_ names: String?..., in container: ContainerIdentifier) throws {
        for case let name? in names { _ = try actions.existingUser(name, in: container) }
    }

    /// The environment the path names (`:environment`).
    /// - Throws: ``CloudStoreError/badRequest(_:)`` when there is no such environment.
    func environment() throws -> Environment { try Environment(parsing: path("environment")) }

    /// The database the path names (`:database`).
    /// - Throws: ``CloudStoreError/badRequest(_:)`` when there is no such database.
    func database() throws -> DatabaseScope { try DatabaseScope(parsing: path("database")) }

    /// A query parameter, or `nil`.
    func query(_ name: String) -> String? { request.queryParameter(name) }

    /// An integer query parameter, `nil` when absent.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` when it is not an integer.
    func queryInteger(_ name: String) throws -> Int64? {
        guard let text = query(name), !text.isEmpty else { return nil }
        guard let value = Int64(text) else { throw CloudStoreError.badRequest("\(name) must be an integer, not '\(text)'") }
        return value
    }

    /// The body as text (a schema), which must be UTF-8.
    func text() throws -> String {
        guard let text = String(validating: request.body, as: UTF8.self) else {
            throw CloudStoreError.badRequest("The request body must be UTF-8 text")
        }
        return text
    }

    /// A string member of the body that must be present.
    func string(_ key: String) throws -> String {
        guard let value = try optionalString(key) else { throw CloudStoreError.badRequest("The request body needs \"\(key)\"") }
        return value
    }

    /// A string member of the body, or `nil` when absent or null.
    func optionalString(_ key: String) throws -> String? {
        switch object[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw CloudStoreError.badRequest("\"\(key)\" must be a string")
        }
    }

    /// A boolean member of the body that must be present.
    func bool(_ key: String) throws -> Bool {
        guard let value = try optionalBool(key) else { throw CloudStoreError.badRequest("The request body needs \"\(key)\"") }
        return value
    }

    /// A boolean member of the body, or `nil` when absent or null.
    func optionalBool(_ key: String) throws -> Bool? {
        switch object[key] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        default: throw CloudStoreError.badRequest("\"\(key)\" must be true or false")
        }
    }

    /// An object of strings in the body (`{"Note": "bob"}`); empty when absent.
    func stringMap(_ key: String) throws -> [String: String] {
        switch object[key] {
        case nil, .null?: return [:]
        case .object(let members)?:
            var map: [String: String] = [:]
            for (name, value) in members {
                guard let string = value.stringValue else { throw CloudStoreError.badRequest("\"\(key)\" must map names to strings") }
                map[name] = string
            }
            return map
        default: throw CloudStoreError.badRequest("\"\(key)\" must map names to strings")
        }
    }

    /// An array of strings in the body; empty when absent.
    func strings(_ key: String) throws -> [String] {
        switch object[key] {
        case nil, .null?: return []
        case .array(let values)?:
            return try values.map { value in
                guard let string = value.stringValue else { throw CloudStoreError.badRequest("\"\(key)\" must be an array of strings") }
                return string
            }
        default: throw CloudStoreError.badRequest("\"\(key)\" must be an array of strings")
        }
    }
}
