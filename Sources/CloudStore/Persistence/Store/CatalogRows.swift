/// A result row as the catalog's decoders read it, by column from 0: SQLite's and PostgreSQL's
/// rows alike, so that one decoder serves both backends.
protocol CatalogRow {
    func text(_ column: Int32) -> String
    func optionalText(_ column: Int32) -> String?
    func integer(_ column: Int32) -> Int64
    func optionalInteger(_ column: Int32) -> Int64?
    func bool(_ column: Int32) -> Bool
}

extension SQLiteRow: CatalogRow {
    /// SQLite stores a flag as 0 or 1.
    func bool(_ column: Int32) -> Bool { integer(column) != 0 }
}

extension PostgresRow: CatalogRow {
    func text(_ column: Int32) -> String { text(Int(column)) }
    func optionalText(_ column: Int32) -> String? { optionalText(Int(column)) }
    func integer(_ column: Int32) -> Int64 { integer(Int(column)) }
    func optionalInteger(_ column: Int32) -> Int64? { optionalInteger(Int(column)) }
    func bool(_ column: Int32) -> Bool { bool(Int(column)) }
}

/// The catalog's credential rows, the same on both backends: the columns each is read and
/// written as, and the values they decode to.
enum CatalogRows {
    static let tokenColumns = "token, container, environment, name, allowed_origins, sign_in_callback, created"
    static let keyColumns = "key_id, container, environment, public_key, user_record_name, name, created"
    static let userColumns = "user_record_name, container, name, email, first_name, last_name, created, password, discoverable"
    static let managementTokenColumns = "id, operator, name, created, last_used"

    /// An API token from a row of `tokenColumns`.
    static func apiToken(from row: some CatalogRow) throws -> APIToken {
        APIToken(
            token: row.text(0), container: try ContainerIdentifier(row.text(1)),
            environment: try environment(row.text(2)), name: row.text(3),
            allowedOrigins: row.text(4).split(separator: "\n").map(String.init), signInCallback: row.optionalText(5),
            created: row.integer(6))
    }

    /// A server-to-server key from a row of `keyColumns`.
    static func serverKey(from row: some CatalogRow) throws -> ServerKey {
        ServerKey(
            keyID: row.text(0), container: try ContainerIdentifier(row.text(1)), environment: try environment(row.text(2)),
            publicKeyPEM: row.text(3), userRecordName: row.text(4), name: row.text(5), created: row.integer(6))
    }

    /// A user from a row of `userColumns` (the password hash, column 7, is left to the caller).
    static func user(from row: some CatalogRow) throws -> AppUser {
        AppUser(
            userRecordName: row.text(0), container: try ContainerIdentifier(row.text(1)), name: row.text(2),
            emailAddress: row.optionalText(3), firstName: row.optionalText(4), lastName: row.optionalText(5), created: row.integer(6),
            isDiscoverable: row.bool(8))
    }

    /// A management token from a row of `managementTokenColumns`.
    static func managementToken(from row: some CatalogRow) -> ManagementToken {
        ManagementToken(
            id: row.text(0), operatorName: row.text(1), name: row.text(2), created: row.integer(3), lastUsed: row.optionalInteger(4))
    }

    /// The environment a stored name stands for.
    /// - Throws: ``CloudStoreError/internalError(_:)`` when the catalog holds a name no environment has.
    static func environment(_ text: String) throws -> Environment {
        guard let environment = Environment(rawValue: text) else {
            throw CloudStoreError.internalError("The catalog holds an unknown environment '\(text)'")
        }
        return environment
    }
}
