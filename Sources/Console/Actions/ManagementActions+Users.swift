import CloudKitWire
import CloudStore

extension ManagementActions {
    /// A container's app users, by name, with how many sessions each has open; with `search`,
    /// only those whose name, email or user record name contains it (ignoring case).
    public func users(in container: String, search: String? = nil, as actor: OperatorIdentity) throws -> JSONValue {
        let identifier = try existingContainer(container)
        var users = try store.users(identifier)
        if let search = search?.trimmingCharacters(in: .whitespaces), !search.isEmpty {
            users = users.filter { user in
                [user.name, user.emailAddress ?? "", user.userRecordName].contains { $0.localizedCaseInsensitiveContains(search) }
            }
        }
        return ["users": .array(try users.map { try userJSON($0) })]
    }

    /// Adds a user who signs in with `name` and `password`.
    public func addUser(
        in container: String, name: String, password: String, emailAddress: String?, firstName: String?, lastName: String?,
        discoverable: Bool = false, as actor: OperatorIdentity
    ) throws -> JSONValue {
        let user = try store.addUser(
            try existingContainer(container), name: name, password: password, emailAddress: Self.nonEmpty(emailAddress),
            firstName: Self.nonEmpty(firstName), lastName: Self.nonEmpty(lastName), isDiscoverable: discoverable, by: actor)
        return try userJSON(user)
    }

    /// Removes a user and ends their sessions.
    public func removeUser(_ user: String, in container: String, as actor: OperatorIdentity) throws -> JSONValue {
        let (identifier, found) = try existingUser(user, in: container)
        try store.removeUser(found.userRecordName, from: identifier, by: actor)
        return ["removed": .string(found.userRecordName)]
    }

    /// Sets a user's password; their sessions end.
    public func setUserPassword(_ user: String, in container: String, password: String, as actor: OperatorIdentity) throws -> JSONValue {
        let (identifier, found) = try existingUser(user, in: container)
        try store.setPassword(password, of: found.userRecordName, in: identifier, by: actor)
        return try userJSON(found)
    }

    /// Sets whether other users may find this one (`users/discover`, `users/lookup/*`).
    public func setUserDiscoverable(_ user: String, in container: String, discoverable: Bool, as actor: OperatorIdentity) throws -> JSONValue {
        let (identifier, found) = try existingUser(user, in: container)
        try store.setDiscoverable(discoverable, of: found.userRecordName, in: identifier, by: actor)
        guard let updated = try store.user(found.userRecordName, in: identifier) else {
            throw CloudStoreError.notFound("Container \(container) has no user '\(user)'")
        }
        return try userJSON(updated)
    }

    /// Ends every session of a user at once.
    public func signOutUser(_ user: String, in container: String, as actor: OperatorIdentity) throws -> JSONValue {
        let (identifier, found) = try existingUser(user, in: container)
        let ended = try store.signOutEverywhere(found.userRecordName, in: identifier, by: actor)
        return ["userRecordName": .string(found.userRecordName), "endedSessions": .integer(Int64(ended))]
    }

    /// A user named by sign-in name or user record name.
    func existingUser(_ user: String, in container: String) throws -> (ContainerIdentifier, AppUser) {
        let identifier = try existingContainer(container)
        guard let found = try store.user(named: user, in: identifier) ?? store.user(user, in: identifier) else {
            throw CloudStoreError.notFound("Container \(container) has no user '\(user)'")
        }
        return (identifier, found)
    }

    private func userJSON(_ user: AppUser) throws -> JSONValue {
        [
            "userRecordName": .string(user.userRecordName), "name": .string(user.name),
            "emailAddress": Self.optional(user.emailAddress), "firstName": Self.optional(user.firstName),
            "lastName": Self.optional(user.lastName), "created": Self.time(user.created),
            "roles": .object(JSONObject(try Environment.allCases.map { environment in
                (environment.rawValue, JSONValue.array(try store.roles(of: user.userRecordName, in: user.container, environment).sorted().map(JSONValue.string)))
            })),
            "openSessions": .integer(Int64(try store.openSessionCount(of: user.userRecordName, in: user.container))),
            "discoverable": .bool(user.isDiscoverable),
        ]
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let trimmed = value?.trimmingCharacters(in: .whitespaces), !trimmed.isEmpty else { return nil }
        return trimmed
    }
}
