import ArgumentParser
import CloudStore
import Foundation

/// `cumulus migrate-store`: copies a store kept in SQLite files into an empty PostgreSQL
/// database, where several servers can share it.
struct MigrateStoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate-store",
        abstract: "Copy a data directory's SQLite store into an empty PostgreSQL database.",
        discussion: """
            Stop the server first: what it writes after the copy has read a file is not copied. The \
            PostgreSQL migrations run first; then the catalog (containers, the server secret, credentials, \
            users and sessions, push tokens, operators and management tokens, deployments, the audit trail, \
            limits), every container environment (schema, zones, records, change logs, subscriptions, queued \
            notifications, shares, roles, asset references) and the request log are copied in one transaction, \
            read back, and compared table by table (row counts and checksums) before it commits: a failure \
            or a difference leaves nothing copied. Zone keys, change sequences, change tags, the secret and the \
            incarnation are kept, so change tokens, continuation markers and signed-in users of the SQLite \
            server carry on against the PostgreSQL servers without fetching everything again.

            Asset files are not copied: records keep their references, and the new servers must reach the \
            same blobs. Start them with --assets naming this data directory (it holds the blobs under \
            containers/), or a shared volume holding a copy of it, or a bucket you copied them into.

            The target must be empty (a database `cumulus migrate` has prepared is). The data directory is \
            only read; keep it until the PostgreSQL servers run.
            """)

    @Option(name: .customLong("from"), help: "The data directory holding the SQLite store.")
    var from: String

    @Option(name: .customLong("to"), help: "The PostgreSQL database to copy into, postgres://user:password@host:5432/name.")
    var to: String

    func run() throws {
        let location: DatabaseLocation
        do {
            location = try DatabaseSetting.resolve(to)
        } catch {
            throw ValidationError("--to: \(error.description)")
        }
        guard case .postgres(let url) = location else { throw ValidationError("--to: a postgres:// URL") }
        let report = try StoreMigration(from: from, to: url).run { step in
            FileHandle.standardError.write(Data("\(step)…\n".utf8))
        }
        for scope in report.scopes {
            print(Self.summary(of: scope, in: report))
        }
        let rate = report.seconds > 0 ? Int(Double(report.rows) / report.seconds) : report.rows
        print(
            "Copied \(report.rows) rows in \(report.tables.count) tables in \(String(format: "%.1f", report.seconds)) s (\(rate) rows/s) "
                + "into \(location); every table's rows and checksum match.")
        print("Start the servers with --database-url and --assets \(from) (or where its asset files now are).")
    }

    /// One line for a part of the store: what it holds.
    static func summary(of scope: String, in report: StoreMigrationReport) -> String {
        let tables = report.tables.filter { $0.scope == scope }
        let counted: [(String, String)]
        switch scope {
        case "catalog":
            counted = [("containers", "containers"), ("users", "users"), ("api_tokens", "API tokens"), ("operators", "operators")]
        case "request log": counted = [("requests", "requests"), ("usage_minutes", "usage minutes")]
        default:
            counted = [
                ("zones", "zones"), ("records", "records"), ("changes", "changes"), ("subscriptions", "subscriptions"),
                ("notifications", "notifications"), ("shares", "shares"),
            ]
        }
        let counts = counted.map { "\(report.rows(scope, $0.0)) \($0.1)" }.joined(separator: ", ")
        return "\(scope): \(counts) (\(tables.count) tables verified)"
    }
}
