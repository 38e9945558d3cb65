import CloudStore
import Foundation

extension TestDatabase {
    /// A store on this database as one `cumulus` process opens it, with its own temporary data
    /// directory and fast password hashing; `configure` makes last changes.
    public func process(configure: (inout CloudStoreConfiguration) -> Void = { _ in }) throws -> CloudStore {
        var configuration = CloudStoreConfiguration(
            dataDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("cumulus-test-\(UUID().uuidString)").path)
        configuration.database = .postgres(url: url)
        configuration.passwordHasher = PasswordHasher(parameters: .init(logN: 10, blockSize: 8, parallelism: 1))
        configure(&configuration)
        return try CloudStore(configuration: configuration)
    }
}
