/// Decides what a caller may do in a database, as CloudKit does before custom security roles:
/// the public database follows a record type's default grants (everyone reads, signed-in users
/// create, a record's creator writes; server-to-server keys and the operator administer); a
/// private or shared database belongs to its user alone.
struct AccessPolicy {
    let caller: Caller
    let database: DatabaseID

    /// Whether the caller administers the database: the operator everywhere, a
    /// server-to-server key in the public database.
    var isAdministrator: Bool {
        caller.kind == .operator || (caller.kind == .server && database.scope == .public)
    }

    /// Refuses callers who may not touch the database at all.
    func checkAccess() throws {
        switch database.scope {
        case .public:
            return
        case .private, .shared:
            switch caller.kind {
            case .operator:
                return
            case .world:
                throw CloudStoreError.authenticationRequired("The \(database.scope) database needs a signed-in user")
            case .server:
                throw CloudStoreError.accessDenied("Server-to-server keys can use the public database only")
            case .user:
                guard caller.userRecordName == database.owner else {
                    throw CloudStoreError.accessDenied("The \(database.scope) database belongs to another user")
                }
            }
        }
    }

    /// Refuses callers who may not change anything: the world, which has no user to stamp changes with.
    func checkCanModify() throws {
        try checkAccess()
        if caller.kind == .world {
            throw CloudStoreError.authenticationRequired("Changing records needs a signed-in user")
        }
    }

    /// Whether the caller may create records of a type: `GRANT CREATE TO "_icloud"`.
    func canCreate() -> Bool { caller.kind != .world }

    /// Whether the caller may change or delete `record`: `GRANT WRITE TO "_creator"`.
    func canWrite(_ record: Record) -> Bool {
        if isAdministrator || database.scope != .public { return true }
        return caller.kind == .user && record.created.userRecordName == caller.userRecordName
    }

    /// Whether the caller may read records: `GRANT READ TO "_world"`.
    func canRead() -> Bool { true }

    /// Whether the caller may create and delete zones: only in a private database, by its owner or the operator.
    func checkCanModifyZones() throws {
        try checkCanModify()
        guard database.scope == .private else {
            throw CloudStoreError.badRequest("Custom zones exist only in private databases, not in the \(database.scope) database")
        }
    }
}
