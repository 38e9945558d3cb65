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
        let environmentName = parameters["environment"] ?? ""
        guard let environment = Environment(rawValue: environmentName) else {
            throw WebServicesError.badRequest("Unknown environment '\(environmentName)': use development or production")
        }
        self.environment = environment
        if let databaseName = parameters["database"] {
            guard let parsed = DatabaseScope(rawValue: databaseName) else {
                throw WebServicesError.badRequest("Unknown database '\(databaseName)': use public, private or shared")
            }
            database = parsed
        } else {
            database = nil
        }
    }
}

extension ContainerIdentifier {
    /// The container of an API path, refused with BAD_REQUEST when malformed.
    static func fromPath(_ text: String?) throws -> ContainerIdentifier {
        do {
            return try ContainerIdentifier(text ?? "")
        } catch let error as CloudStoreError {
            throw WebServicesError.badRequest(error.reason)
        }
    }
}
