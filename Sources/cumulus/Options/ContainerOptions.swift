import ArgumentParser
import CloudStore

/// `--container ID` and `--environment development|production`.
struct ContainerOptions: ParsableArguments {
    @Option(help: "The container identifier, such as iCloud.com.example.Notes.")
    var container: String

    @Option(help: "development or production.")
    var environment: Environment = .development

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
