import CLibPQ
import Foundation

/// PostgreSQL's own client programs (`pg_dump`, `pg_restore`, `psql`), run on the store's
/// database for backups and restores.
///
/// The URL's password never reaches a command line, which every user of the machine may read in
/// `ps`: the programs get the connection without it, and the password in `PGPASSWORD`, which only
/// the programs' user and root can read. Nothing they print is passed on with the password in it.
struct PostgresClientPrograms {
    /// The connection as a libpq keyword string, without the password.
    let connection: String
    /// The URL's password, if it has one.
    private let password: String?

    /// Reads `url` (a `postgres://` URL or a libpq connection string) as libpq does.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` when libpq cannot read it; the message
    ///   does not repeat it.
    init(url: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &message) else {
            if let message { PQfreemem(message) }
            throw CloudStoreError.badRequest("The database URL is not one libpq can read")
        }
        defer { PQconninfoFree(options) }
        var keywords: [String] = []
        var password: String?
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val {
                let name = String(cString: keyword)
                if name == "password" {
                    password = String(cString: value)
                } else {
                    keywords.append("\(name)=\(Self.quoted(String(cString: value)))")
                }
            }
            option += 1
        }
        connection = keywords.joined(separator: " ")
        self.password = password
    }

    /// `value` as a libpq keyword value: in single quotes, its quotes and backslashes escaped.
    private static func quoted(_ value: String) -> String {
        "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    // MARK: - Finding the programs

    /// Where `program` is: the first directory of `PATH` that has it, else the newest PostgreSQL
    /// under `/usr/lib/postgresql/*/bin` (Debian's layout, where only some programs are linked
    /// into `/usr/bin`).
    /// - Throws: ``CloudStoreError/badRequest(_:)`` naming the program and how to get it.
    static func locate(_ program: String) throws -> String {
        let fileManager = FileManager.default
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(program)"
            if fileManager.isExecutableFile(atPath: candidate) { return candidate }
        }
        let versions = (try? fileManager.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
            let candidate = "/usr/lib/postgresql/\(version)/bin/\(program)"
            if fileManager.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw CloudStoreError.badRequest(
            "\(program) was not found on PATH or under /usr/lib/postgresql/*/bin: install PostgreSQL's client programs (Debian: postgresql-client)"
        )
    }

    // MARK: - Running them

    /// Runs `program` with `arguments` on the database and waits for it to end.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` when it is missing,
    ///   ``CloudStoreError/internalError(_:)`` with what it printed on failure, the password
    ///   taken out.
    func run(_ program: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Self.locate(program))
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        if let password { environment["PGPASSWORD"] = password }
        process.environment = environment
        let errors = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw CloudStoreError.internalError("\(program) could not be started: \(error)")
        }
        // Read to the end before waiting: a program blocked on a full pipe would never end.
        let printed = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            var message = String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if let password, !password.isEmpty { message = message.replacingOccurrences(of: password, with: "***") }
            throw CloudStoreError.internalError(
                "\(program) failed: \(message.isEmpty ? "exit status \(process.terminationStatus)" : message)")
        }
    }
}
