import CloudStore
import HTTPServer

/// The shapes of a CloudKit endpoint's path: what comes between the API's prefix and the
/// operation, and so what ``APIScope`` a request of it carries.
enum APIPath: Sendable {
    /// `/database/1/:container/:environment/:database/<operation>`.
    case database
    /// `/database/1/:container/:environment/<operation>` (`tokens/create`, `tokens/register`).
    case environment
    /// `/device/1/:container/:environment/<operation>` (`tokens/create`, `tokens/register`).
    case device

    /// The pattern of `operation` on a path of this shape.
    func pattern(_ operation: String) -> String {
        switch self {
        case .database: "/database/1/:container/:environment/:database/" + operation
        case .environment: "/database/1/:container/:environment/" + operation
        case .device: "/device/1/:container/:environment/" + operation
        }
    }
}

/// Where an API request goes, decoded from its path before its endpoint runs: the container,
/// the environment and, on paths that name one, the database.
struct APIScope: Sendable {
    let container: ContainerIdentifier
    let environment: Environment
    /// The database of the path; `nil` on paths without one (`tokens/create`).
    let database: DatabaseScope?

    /// The scope `parameters` name, in the order a bad path is refused: container, environment,
    /// then database.
    /// - Throws: BAD_REQUEST naming the malformed container, or the unknown environment or database.
    init(_ parameters: PathParameters) throws {
        container = try ContainerIdentifier.fromPath(parameters["container"])
        environment = try WebServicesError.refusing { try Environment(parsing: parameters["environment"] ?? "") }
        database = try parameters["database"].map { name in try WebServicesError.refusing { try DatabaseScope(parsing: name) } }
    }
}

extension ContainerIdentifier {
    /// The container of an API path, refused with BAD_REQUEST when malformed.
    static func fromPath(_ text: String?) throws -> ContainerIdentifier {
        try WebServicesError.refusing { try ContainerIdentifier(text ?? "") }
    }
}

extension WebServicesError {
    /// The value a path parser makes, its refusal sent as the data API's BAD_REQUEST with the parser's reason.
    static func refusing<T>(_ parse: () throws -> T) throws -> T {
        do {
            return try parse()
        } catch let error as CloudStoreError {
            throw WebServicesError.badRequest(error.reason)
        }
    }
}
