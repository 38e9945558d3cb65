/// The catalog's credential, session, limit and audit rows, the same on both backends: the
/// columns each is read and written as, and the values they decode to.
enum CatalogRows {
    static let tokenColumns = "token, container, environment, name, allowed_origins, sign_in_callback, created"
    static let keyColumns = "key_id, container, environment, public_key, user_record_name, name, created"
    static let userColumns = "user_record_name, container, name, email, first_name, last_name, created, password, discoverable"
    static let managementTokenColumns = "id, operator, name, created, last_used"
    static let auditColumns = "time, actor, operator, container, environment, action, target, id, client"
    static let limitColumns = "requests_per_second, burst, storage_bytes, transfer_bytes_per_month"
    static let sessionColumns = "id, container, user_record_name, token_lifetime, created, expires, last_seen, environment"

    /// An API token from a row of `tokenColumns`.
    static func apiToken(from row: some StoredRow) throws -> APIToken {
        APIToken(
            token: row.text(0), container: try ContainerIdentifier(row.text(1)),
            environment: try environment(row.text(2)), name: row.text(3),
            allowedOrigins: row.text(4).split(separator: "\n").map(String.init), signInCallback: row.optionalText(5),
            created: row.integer(6))
    }

    /// A server-to-server key from a row of `keyColumns`.
    static func serverKey(from row: some StoredRow) throws -> ServerKey {
        ServerKey(
            keyID: row.text(0), container: try ContainerIdentifier(row.text(1)), environment: try environment(row.text(2)),
            publicKeyPEM: row.text(3), userRecordName: row.text(4), name: row.text(5), created: row.integer(6))
    }

    /// A user from a row of `userColumns` (the password hash, column 7, is left to the caller).
    static func user(from row: some StoredRow) throws -> AppUser {
        AppUser(
            userRecordName: row.text(0), container: try ContainerIdentifier(row.text(1)), name: row.text(2),
            emailAddress: row.optionalText(3), firstName: row.optionalText(4), lastName: row.optionalText(5), created: row.integer(6),
            isDiscoverable: row.bool(8))
    }

    /// The columns of an operator, as both backends read them.
    static let operatorColumns = "name, created, role, containers"

    /// An operator from a row of `operatorColumns`. A role or container the store no longer
    /// knows reads as the least: a viewer, of the containers still named.
    static func operatorAccount(from row: some StoredRow) -> OperatorAccount {
        OperatorAccount(
            name: row.text(0), created: row.integer(1), role: OperatorRole(rawValue: row.text(2)) ?? .viewer,
            containers: row.text(3).split(separator: " ").compactMap { try? ContainerIdentifier(String($0)) })
    }

    /// An operator's containers as stored: their identifiers, separated by spaces (none: every container).
    static func operatorContainers(_ containers: [ContainerIdentifier]) -> String {
        containers.map(\.rawValue).joined(separator: " ")
    }

    /// A management token from a row of `managementTokenColumns`.
    static func managementToken(from row: some StoredRow) -> ManagementToken {
        ManagementToken(
            id: row.text(0), operatorName: row.text(1), name: row.text(2), created: row.integer(3), lastUsed: row.optionalInteger(4))
    }

    /// The columns of a push token, as both backends read and insert them.
    static let pushTokenColumns =
        "token, container, environment, apns_environment, user_record_name, created, session, bound, last_used, last_polled"

    /// A push token from a row of `pushTokenColumns`.
    static func pushToken(from row: some StoredRow) throws -> PushToken {
        PushToken(
            token: row.text(0), container: try ContainerIdentifier(row.text(1)), environment: try environment(row.text(2)),
            apnsEnvironment: row.text(3), userRecordName: row.optionalText(4), created: row.integer(5), session: row.optionalText(6),
            bound: row.optionalInteger(7), lastUsed: row.integer(8), lastPolled: row.optionalInteger(9))
    }

    /// A web session and when it was last seen in use, from a row of `sessionColumns`.
    static func session(from row: some StoredRow) throws -> (session: WebSession, lastSeen: Int64) {
        (
            WebSession(
                id: row.text(0), container: try ContainerIdentifier(row.text(1)),
                environment: row.optionalText(7).flatMap(Environment.init(rawValue:)), userRecordName: row.text(2),
                idleLifetime: row.integer(3), created: row.integer(4), expires: row.integer(5)), row.integer(6)
        )
    }

    /// An audit entry from a row of `auditColumns`.
    static func auditEntry(from row: some StoredRow) -> AuditEntry {
        var entry = AuditEntry(
            time: row.integer(0), actor: row.text(1), operatorName: row.text(2), container: row.optionalText(3),
            environment: row.optionalText(4), action: row.text(5), target: row.text(6), clientAddress: row.optionalText(8))
        entry.id = row.integer(7)
        return entry
    }

    /// An environment's limits from a row of `limitColumns`.
    static func limits(from row: some StoredRow) -> EnvironmentLimits {
        EnvironmentLimits(
            requestsPerSecond: row.double(0), burst: Int(row.integer(1)), storageBytes: row.optionalInteger(2),
            transferBytesPerMonth: row.optionalInteger(3))
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
