extension CloudStore {
    /// How a user is looked up for discovery: by email address, phone number or user record name.
    public enum UserLookup: Hashable, Sendable {
        /// By email address, compared without case.
        case emailAddress(String)
        /// By phone number, which the server does not keep: it finds no one.
        case phoneNumber(String)
        /// By user record name.
        case userRecordName(String)
    }

    /// Sets whether a user may be found by others through discovery.
    /// - Throws: ``CloudStoreError/notFound(_:)`` for an unknown user.
    public func setDiscoverable(
        _ discoverable: Bool, of userRecordName: String, in container: ContainerIdentifier, by actor: OperatorIdentity? = nil
    ) throws {
        let found = try actor.flatMap { _ in try user(userRecordName, in: container) }
        let changed = try auditedCatalogChange(
            found.flatMap { _ in actor }, "user.discoverable", container: container.rawValue,
            target: (found?.auditLabel ?? "") + ": \(discoverable ? "yes" : "no")"
        ) { try credentials.setDiscoverable(discoverable, of: userRecordName, in: container) }
        guard changed else {
            throw CloudStoreError.notFound("User \(userRecordName) does not exist in \(container)")
        }
    }

    /// The users `lookups` find, in their order, among those who chose to be discoverable;
    /// a lookup that finds no such user finds nothing (whether the user exists is not told).
    /// Phone numbers are not kept, so they find no one.
    /// - Throws: ``CloudStoreError/authenticationRequired(_:)`` unless a user or an operator asks:
    ///   discovery is for signed-in users, as in CloudKit.
    /// - Parameter trace: where a refusal is recorded.
    public func discoverUsers(
        _ lookups: [UserLookup], in container: ContainerIdentifier, as caller: Caller, trace: RequestTrace? = nil
    ) throws -> [AppUser] {
        try requireDiscoverer(caller, trace: trace)
        var found: [AppUser] = []
        for lookup in lookups {
            let user: AppUser?
            switch lookup {
            case .emailAddress(let email): user = try credentials.user(email: email.trimmingCharacters(in: .whitespaces), in: container)
            case .userRecordName(let name): user = try credentials.user(name, in: container)
            case .phoneNumber: user = nil
            }
            if let user, user.isDiscoverable, !found.contains(where: { $0.userRecordName == user.userRecordName }) { found.append(user) }
        }
        return found
    }

    /// Every user of a container who chose to be discoverable: what `users/discover` without
    /// lookups and `users/lookup/contacts` answer, since the server holds no address books.
    /// - Parameter trace: where a refusal is recorded.
    public func discoverableUsers(in container: ContainerIdentifier, as caller: Caller, trace: RequestTrace? = nil) throws -> [AppUser] {
        try requireDiscoverer(caller, trace: trace)
        return try credentials.users(in: container).filter(\.isDiscoverable)
    }

    private func requireDiscoverer(_ caller: Caller, trace: RequestTrace?) throws {
        switch caller {
        case .user, .operator: return
        case .world, .server:
            trace?.recordRefusal(
                caller: caller.description, database: "", rule: "discovering users needs a signed-in user",
                why: caller.isWorld ? "the caller is not signed in" : "a server-to-server key is no user")
            throw CloudStoreError.authenticationRequired("Discovering users needs a signed-in user")
        }
    }
}
