import Foundation

/// The SQLite store `migrate-store` reads: a data directory's catalog, its container
/// environments' files and its request log, each checked to be of this program's version
/// before anything is copied.
struct SourceStore {
    /// One container environment and its file.
    struct EnvironmentFile {
        var container: ContainerIdentifier
        var environment: Environment
        /// The file's path, or `nil` when the environment never had one (nothing to copy).
        var path: String?

        /// How the environment is named in messages and the report.
        var scope: String { "\(container.rawValue) \(environment.rawValue)" }
    }

    /// The catalog file.
    let catalogPath: String
    /// The request log's file, when there is one.
    let requestLogPath: String?
    /// Every container's environments, by container identifier.
    let environments: [EnvironmentFile]

    /// Finds the store in `dataDirectory` and checks its files.
    /// - Throws: ``CloudStoreError/notFound(_:)`` for a directory that does not exist or holds no
    ///   store; ``CloudStoreError/badRequest(_:)`` for files of another version.
    init(dataDirectory: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dataDirectory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CloudStoreError.notFound("The data directory \(dataDirectory) does not exist")
        }
        catalogPath = "\(dataDirectory)/\(CloudStore.catalogFileName)"
        guard FileManager.default.fileExists(atPath: catalogPath) else {
            throw CloudStoreError.notFound("The data directory \(dataDirectory) holds no store (it has no \(CloudStore.catalogFileName))")
        }
        let requestLog = "\(dataDirectory)/\(CloudStore.requestLogFileName)"
        requestLogPath = FileManager.default.fileExists(atPath: requestLog) ? requestLog : nil

        try Self.checkVersion(of: catalogPath, expected: SQLiteCatalogMigrations.migrator.migrations.count)
        if let requestLogPath { try Self.checkVersion(of: requestLogPath, expected: SQLiteRequestLogStore.migrator.migrations.count) }
        let containers = try Self.read(catalogPath) { connection in
            try connection.statement("SELECT container FROM containers ORDER BY container COLLATE BINARY").rows {
                try ContainerIdentifier($0.text(0))
            }
        }
        var environments: [EnvironmentFile] = []
        for container in containers {
            for environment in Environment.allCases {
                let path = SQLiteStorageBackend.environmentPath(in: dataDirectory, container, environment)
                let exists = FileManager.default.fileExists(atPath: path)
                if exists { try Self.checkVersion(of: path, expected: SQLiteEnvironmentMigrations.migrator.migrations.count) }
                environments.append(EnvironmentFile(container: container, environment: environment, path: exists ? path : nil))
            }
        }
        self.environments = environments
    }

    /// Runs `body` in one read transaction of the file at `path`: everything it reads is of one
    /// moment, whatever another process writes meanwhile.
    static func read<T>(_ path: String, _ body: (SQLiteConnection) throws -> T) throws -> T {
        do {
            let connection = try SQLiteConnection(path: path)
            return try connection.transaction(immediate: false) { try body(connection) }
        } catch let error as SQLiteError {
            throw CloudStoreError.internalError("Reading \(path) failed: \(error.message)")
        }
    }

    /// Refuses a file this program's migrations have not brought to their last version, or
    /// that a newer program wrote.
    private static func checkVersion(of path: String, expected: Int) throws {
        let version = try read(path) { Int(try $0.statement("PRAGMA user_version").scalarInteger() ?? 0) }
        if version < expected {
            throw CloudStoreError.badRequest(
                "\(path) is of an older version of Cumulus: run `cumulus migrate` on the data directory first")
        }
        if version > expected {
            throw CloudStoreError.badRequest("\(path) was written by a newer version of Cumulus than this one")
        }
    }
}
