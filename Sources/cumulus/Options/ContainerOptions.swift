import ArgumentParser
import CloudStore

/// `--container ID` and `--environment development|production`.
struct ContainerOptions: ParsableArguments {
    @Option(help: "The container identifier, such as iCloud.com.example.Notes.")
    var container: String

    @Option(help: "development or production.")
    var environment: Environment = .development

    /// The management path of `segments` under the container's environment: `containers/C/E/…`.
    func path(_ segments: [String], query: [(String, String?)] = []) -> ManagementPath {
        ManagementPath(segments: ["containers", container, environment.rawValue] + segments, query: query)
    }

    /// The validated container identifier.
    func identifier() throws -> ContainerIdentifier {
        do {
            return try ContainerIdentifier(container)
        } catch let error as CloudStoreError {
            throw ValidationError(error.reason)
        }
    }
}

extension Environment: ExpressibleByArgument {}
