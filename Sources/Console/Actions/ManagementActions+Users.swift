import CloudKitWire
import CloudStore

extension ManagementActions {
    /// A container's app users, by name, with how many sessions each has open; with `search`,
    /// only those whose name, email or user record name contains it (ignoring case).
    public func users(in container: ContainerIdentifier, search: String? = nil, as actor: OperatorIdentity) throws -> UsersView {
        let identifier = try existingContainer(container)
        var users = try store.users(identifier)
        if let search = search?.trimmingCharacters(in: .whitespaces), !search.isEmpty {
            users = users.filter { user in
                [user.name, user.emailAddress ?? "", user.userRecordName].contains { $0.localizedCaseInsensitiveContains(search) }
            }
        }
        return UsersView(try users.map { try userView($0) })
    }

    /// Adds a user who signs in with `name` and `password`.
    public func addUser(
        in container: ContainerIdentifier, name: String, password: String, emailAddress: String?, firstName: String?, lastName: String?,
        discoverable: Bool = false, as actor: OperatorIdentity
    ) throws -> UserView {
        let user = try store.addUser(
            try existingContainer(container), name: name, password: password, emailAddress: Self.nonEmpty(emailAddress),
            firstName: Self.nonEmpty(firstName), lastName: Self.nonEmpty(lastName), isDiscoverable: discoverable, by: actor)
        return try userView(user)
    }

    /// Removes a user and ends their sessions.
    public func removeUser(_ user: String, in container: ContainerIdentifier, as actor: OperatorIdentity) throws -> UserRemoval {
        let (identifier, found) = try existingUser(user, in: container)
        try store.removeUser(found.userRecordName, from: identifier, by: actor)
        return UserRemoval(removed: found.userRecordName)
    }

    /// Sets a user's password; their sessions end.
    public func setUserPassword(_ user: String, in container: ContainerIdentifier, password: String, as actor: OperatorIdentity) throws
        -> UserView
    {
        let (identifier, found) = try existingUser(user, in: container)
        try store.setPassword(password, of: found.userRecordName, in: identifier, by: actor)
        return try userView(found)
    }

    /// Sets whether other users may find this one (`users/discover`, `users/lookup/*`).
    public func setUserDiscoverable(
        _ user: String, in container: ContainerIdentifier, discoverable: Bool, as actor: OperatorIdentity
    ) throws -> UserView {
        let (identifier, found) = try existingUser(user, in: container)
        try store.setDiscoverable(discoverable, of: found.userRecordName, in: identifier, by: actor)
        guard let updated = try store.user(found.userRecordName, in: identifier) else {
            throw CloudStoreError.notFound("Container \(container) has no user '\(user)'")
        }
        return try userView(updated)
    }

    /// Ends every session of a user at once.
    public func signOutUser(_ user: String, in container: ContainerIdentifier, as actor: OperatorIdentity) throws -> SignOutOutcome {
        let (identifier, found) = try existingUser(user, in: container)
        let ended = try store.signOutEverywhere(found.userRecordName, in: identifier, by: actor)
        return SignOutOutcome(userRecordName: found.userRecordName, endedSessions: ended)
    }

    /// A user named by sign-in name or user record name.
    func existingUser(_ user: String, in container: ContainerIdentifier) throws -> (ContainerIdentifier, AppUser) {
        let identifier = try existingContainer(container)
        guard let found = try store.user(named: user, in: identifier) ?? store.user(user, in: identifier) else {
            throw CloudStoreError.notFound("Container \(container) has no user '\(user)'")
        }
        return (identifier, found)
    }

    /// The sign-in names of a container's users by user record name, in one read of the store:
    /// what a page or an answer names users by. The container must already be known to exist.
    func userNames(_ identifier: ContainerIdentifier) throws -> [String: String] {
        Dictionary(try store.users(identifier).map { ($0.userRecordName, $0.name) }, uniquingKeysWith: { first, _ in first })
    }

    private func userView(_ user: AppUser) throws -> UserView {
        var roles: [Environment: [String]] = [:]
        for environment in Environment.allCases {
            roles[environment] = try store.roles(of: user.userRecordName, in: user.container, environment).sorted()
        }
        return UserView(user, roles: roles, openSessions: try store.openSessionCount(of: user.userRecordName, in: user.container))
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let trimmed = value?.trimmingCharacters(in: .whitespaces), !trimmed.isEmpty else { return nil }
        return trimmed
    }
}
