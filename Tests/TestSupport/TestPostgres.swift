import CLibPQ
import Foundation
import Synchronization

/// The PostgreSQL server the tests use, and fresh databases on it.
///
/// The test script starts one throw-away cluster for the whole run and names it in
/// `CUMULUS_TEST_POSTGRES_URL`; without it (`swift test` alone) the first test that asks starts
/// one with the same script, stopped once this process ends.
public enum TestPostgres {
    private static let started = Mutex<Result<String, TestFailure>?>(nil)

    /// The URL of the server, as its superuser.
    public static func serverURL() throws -> String {
        try started.withLock { started in
            if started == nil { started = startServer() }
            return try started!.get()
        }
    }

    private static func startServer() -> Result<String, TestFailure> {
        if let url = ProcessInfo.processInfo.environment["CUMULUS_TEST_POSTGRES_URL"], !url.isEmpty { return .success(url) }
        let script = URL(fileURLWithPath: Repository.root + "/scripts/test-postgres.sh")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script.path, String(ProcessInfo.processInfo.processIdentifier)]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        do {
            try process.run()
        } catch {
            return .failure(TestFailure("cannot run \(script.path): \(error)"))
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        // Not `waitUntilExit`: it never returned here once the script had left its watcher
        // behind. The script prints the URL last, so the URL alone says it succeeded.
        var status: Int32 = 0
        _ = waitpid(process.processIdentifier, &status, 0)
        let url = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard url.hasPrefix("postgres://") else {
            return .failure(TestFailure("starting a PostgreSQL cluster for the tests failed: \(url)"))
        }
        return .success(url)
    }

    /// A new, empty database on the server, dropped when the value is released.
    public static func makeDatabase() throws -> TestDatabase {
        try TestDatabase(serverURL: serverURL())
    }
}

/// An empty PostgreSQL database made for one test, dropped (with its connections) on release.
public final class TestDatabase: Sendable {
    /// The database's name.
    public let name: String
    /// The URL that reaches it.
    public let url: String
    private let serverURL: String

    init(serverURL: String) throws {
        self.serverURL = serverURL
        name = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        url = serverURL.replacingOccurrences(of: "/postgres", with: "/\(name)", options: .backwards)
        try RawPostgres(url: serverURL).execute("CREATE DATABASE \(name)")
    }

    deinit { _ = try? RawPostgres(url: serverURL).execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
}

/// Talks to PostgreSQL directly, bypassing CloudStore, to set up and check what is really stored.
public final class RawPostgres {
    private let handle: OpaquePointer

    /// Connects to `url`.
    public init(url: String) throws {
        guard let handle = PQconnectdb(url) else { throw TestFailure("libpq could not allocate a connection") }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(handle))
            PQfinish(handle)
            throw TestFailure("cannot connect: \(message)")
        }
        self.handle = handle
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    deinit { PQfinish(handle) }

    /// Runs `sql` (one statement or several) and returns the last statement's rows, each
    /// column as text (NULL as "NULL").
    @discardableResult
    public func execute(_ sql: String) throws -> [[String]] {
        guard let result = PQexec(handle, sql) else { throw TestFailure("no result for \(sql)") }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw TestFailure("\(String(cString: PQresultErrorMessage(result))) in \(sql)")
        }
        return (0..<PQntuples(result)).map { row in
            (0..<PQnfields(result)).map { column in
                PQgetisnull(result, row, column) == 1 ? "NULL" : String(cString: PQgetvalue(result, row, column))
            }
        }
    }

    /// Whether the connection is still up.
    public var isConnected: Bool { PQstatus(handle) == CONNECTION_OK }

    /// The server process serving this connection: for tests that kill it.
    public var backendPID: Int32 { PQbackendPID(handle) }
}
