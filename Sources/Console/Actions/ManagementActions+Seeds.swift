import CloudKitWire
import CloudStore

extension ManagementActions {
    // MARK: - Seeds

    /// The container's seeds of development, by name.
    public func seeds(of container: ContainerIdentifier, as actor: OperatorIdentity) throws -> SeedsView {
        SeedsView(try store.seeds(try existingContainer(container)))
    }

    /// Saves development's records as the seed `name`: every record of `recordTypes`, or those
    /// `query` (a CloudKit query object: `recordType`, `filterBy`) matches, in every zone of the
    /// database. A seed of the same name is replaced.
    /// - Parameter user: the owner of a private database (sign-in name or user record name).
    public func saveSeed(
        named name: String, of container: ContainerIdentifier, database: DatabaseScope = .public, user: String? = nil,
        recordTypes: [String], query: JSONValue?, as actor: OperatorIdentity
    ) throws -> SeedView {
        let (identifier, selection) = try selection(container, .development, database, user, recordTypes, query)
        return SeedView(try store.saveSeed(named: name, identifier, selection, by: actor))
    }

    /// Deletes the seed `name`.
    public func deleteSeed(named name: String, of container: ContainerIdentifier, as actor: OperatorIdentity) throws -> SeedDeletion {
        try store.deleteSeed(named: name, try existingContainer(container), by: actor)
        return SeedDeletion(deleted: name)
    }

    // MARK: - Personal fields

    /// The fields of the container marked personal.
    public func personalFields(of container: ContainerIdentifier, as actor: OperatorIdentity) throws -> PersonalFieldsView {
        PersonalFieldsView(try store.personalFields(try existingContainer(container)))
    }

    /// Marks `field` of `recordType` personal, or takes the mark off; answers every mark after.
    public func setPersonal(
        _ personal: Bool, field: String, recordType: String, of container: ContainerIdentifier, as actor: OperatorIdentity
    ) throws -> PersonalFieldsView {
        let identifier = try existingContainer(container)
        try store.setPersonal(personal, PersonalField(recordType: recordType, field: field), identifier, by: actor)
        return PersonalFieldsView(try store.personalFields(identifier))
    }

    // MARK: - Copying production to development, masked

    /// Copies production's records of `recordTypes`, or those `query` matches, into
    /// development, every personal field's value replaced by its fake.
    public func copyToDevelopment(
        of container: ContainerIdentifier, database: DatabaseScope = .public, user: String? = nil, recordTypes: [String],
        query: JSONValue?, as actor: OperatorIdentity
    ) throws -> MaskedCopyView {
        let (identifier, selection) = try selection(container, .production, database, user, recordTypes, query)
        return MaskedCopyView(try store.copyToDevelopment(identifier, selection, by: actor))
    }

    /// What a seed or a copy takes, read from the environment `environment`'s schema: types, or a
    /// query (both at once is refused).
    private func selection(
        _ container: ContainerIdentifier, _ environment: Environment, _ scope: DatabaseScope, _ user: String?, _ recordTypes: [String],
        _ query: JSONValue?
    ) throws -> (ContainerIdentifier, SeedSelection) {
        let (identifier, _, database) = try databaseID(container, environment, scope, user)
        let types = recordTypes.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard let query, query != .null else { return (identifier, .types(types, in: database)) }
        guard types.isEmpty else { throw CloudStoreError.badRequest("Choose record types or a query, not both") }
        do {
            let decoded = try QueryDecoder(schema: try store.schema(identifier, environment)).query(WireValue(query, path: "query"))
            return (identifier, .query(decoded, in: database))
        } catch let error as WireError {
            throw CloudStoreError.badRequest(error.description)
        }
    }
}
