import Foundation
import Synchronization
@testable import CloudStore

/// A CloudStore in a fresh temporary directory, with one container and a controllable clock,
/// removed when the value is released.
final class TemporaryStore: Sendable {
    let directory: String
    let store: CloudStore
    let container: ContainerIdentifier
    let clock = TestClock()

    init(synchronous: SynchronousMode = .normal) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("cumulus-test-\(UUID().uuidString)").path
        let clock = self.clock
        var configuration = CloudStoreConfiguration(dataDirectory: directory, synchronous: synchronous, clock: { clock.tick() })
        // Debug builds run scrypt unoptimised; a small cost keeps tests fast and changes nothing they check.
        configuration.passwordHasher = PasswordHasher(parameters: .init(logN: 10, blockSize: 8, parallelism: 1))
        store = try CloudStore(configuration: configuration)
        container = try ContainerIdentifier("iCloud.com.example.Tests")
        try store.createContainer(container)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// A database of the test container.
    func database(_ environment: Environment = .development, _ scope: DatabaseScope = .public, as caller: Caller = .operator())
        throws -> CloudDatabase
    {
        try store.database(container, environment, scope, as: caller)
    }

    /// A private database of `user`, opened as that user.
    func privateDatabase(of user: String, _ environment: Environment = .development) throws -> CloudDatabase {
        try store.database(container, environment, .private, as: .user(user))
    }

    /// Saves records through the environment's storage directly with a schema, for test setup.
    func setSchema(_ types: [RecordTypeDefinition], _ environment: Environment = .development) throws {
        try store.environment(container, environment).writeSchema { writer in
            for type in types { try writer.saveRecordType(type) }
        }
    }
}

extension CloudDatabase {
    /// Creates one record and returns it, failing the test on a per-record error.
    @discardableResult
    func create(_ type: String, _ name: String? = nil, _ fields: [String: FieldValue] = [:]) throws -> Record {
        let result = try modify(ModifyRequest(operations: [RecordOperation(.create, recordName: name, recordType: type, fields: fields)]))
        guard let record = result.first?.record else { throw TestFailure("create failed: \(result)") }
        return record
    }
}

/// A clock that moves one millisecond each time it is read, so every change gets a distinct time.
final class TestClock: Sendable {
    private let milliseconds = Atomic<Int64>(1_700_000_000_000)

    func tick() -> Int64 { milliseconds.add(1, ordering: .relaxed).newValue }

    /// Moves the clock forward.
    func advance(by interval: Int64) { milliseconds.add(interval, ordering: .relaxed) }
}

/// A failure raised by a test helper.
struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension TemporaryStore {
    /// Imports a schema given in the schema language into development.
    func importSchema(_ text: String) throws {
        try store.importSchema(text, into: container, .development)
    }
}
