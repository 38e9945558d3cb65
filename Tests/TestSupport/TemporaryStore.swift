import CloudStore
import Foundation
import Synchronization

/// A CloudStore in a fresh temporary directory, with one container, removed when released.
///
/// Passwords are hashed with a small scrypt cost (debug builds run scrypt unoptimised; the cost
/// changes nothing tests check). With `controlledClock` the store reads ``clock``, which moves
/// one millisecond per read and can be advanced; otherwise it reads the real time.
public final class TemporaryStore: Sendable {
    /// The data directory.
    public let directory: String
    /// The store.
    public let store: CloudStore
    /// The container created at start (unless `createContainer` was false).
    public let container: ContainerIdentifier
    /// The store's clock when `controlledClock` was asked for.
    public let clock = TestClock()
    /// The PostgreSQL database the store is on, when the tests run on PostgreSQL.
    public let postgresDatabase: TestDatabase?

    /// Opens a store in a new temporary directory.
    /// - Parameters:
    ///   - container: The container's identifier.
    ///   - createContainer: Whether to create it.
    ///   - controlledClock: Whether the store reads ``clock`` instead of the real time.
    ///   - configure: Last changes to the configuration.
    public init(
        container: String = "iCloud.com.example.Tests", createContainer: Bool = true, synchronous: SynchronousMode = .normal,
        controlledClock: Bool = true, configure: (inout CloudStoreConfiguration) -> Void = { _ in }
    ) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("cumulus-test-\(UUID().uuidString)").path
        var configuration = CloudStoreConfiguration(dataDirectory: directory, synchronous: synchronous)
        postgresDatabase = TestBackend.current == .postgres ? try TestPostgres.makeDatabase() : nil
        if let postgresDatabase { configuration.database = .postgres(url: postgresDatabase.url) }
        if controlledClock {
            let clock = self.clock
            configuration.clock = { clock.tick() }
        }
        configuration.passwordHasher = PasswordHasher(parameters: .init(logN: 10, blockSize: 8, parallelism: 1))
        configure(&configuration)
        store = try CloudStore(configuration: configuration)
        self.container = try ContainerIdentifier(container)
        if createContainer { try store.createContainer(self.container) }
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// A second store on the same directory and clock: another process (the command line)
    /// working on the same files.
    public func anotherProcess() throws -> CloudStore {
        let clock = self.clock
        var configuration = CloudStoreConfiguration(dataDirectory: directory, clock: { clock.tick() })
        if let postgresDatabase { configuration.database = .postgres(url: postgresDatabase.url) }
        return try CloudStore(configuration: configuration)
    }

    /// A database of the test container.
    public func database(_ environment: Environment = .development, _ scope: DatabaseScope = .public, as caller: Caller = .operator())
        throws -> CloudDatabase
    {
        try store.database(container, environment, scope, as: caller)
    }

    /// A private database of `user`, opened as that user.
    public func privateDatabase(of user: String, _ environment: Environment = .development) throws -> CloudDatabase {
        try store.database(container, environment, .private, as: .user(user))
    }

    /// Imports a schema given in the schema language into development.
    public func importSchema(_ text: String) throws {
        try store.importSchema(text, into: container, .development)
    }
}

/// A clock that moves one millisecond each time it is read, so every change gets a distinct time.
public final class TestClock: Sendable {
    private let milliseconds = Atomic<Int64>(1_700_000_000_000)

    /// Creates a clock at 2023-11-14.
    public init() {}

    /// The time, moving it on by one millisecond.
    public func tick() -> Int64 { milliseconds.add(1, ordering: .relaxed).newValue }

    /// Moves the clock forward.
    public func advance(by interval: Int64) { milliseconds.add(interval, ordering: .relaxed) }
}

extension CloudDatabase {
    /// Creates one record and returns it, throwing on a per-record error.
    @discardableResult
    public func create(_ type: String, _ name: String? = nil, _ fields: [String: FieldValue] = [:]) throws -> Record {
        let result = try modify(ModifyRequest(operations: [RecordOperation(.create, recordName: name, recordType: type, fields: fields)]))
        guard let record = result.first?.record else { throw TestFailure("create failed: \(result)") }
        return record
    }
}
