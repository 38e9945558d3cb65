extension CloudDatabase {
    /// The database a request addressing a zone of `owner` reaches: in the shared database,
    /// `owner`'s private database as the caller's shares open it; elsewhere this database, whose
    /// zones all have its own owner.
    public func reaching(owner: String?) -> CloudDatabase {
        guard database.scope == .shared, let owner, owner != database.owner else { return self }
        var reached = CloudDatabase(
            store: store, storage: storage, container: container, environment: environment, database: .private(owner), caller: caller)
        reached.viaShare = true
        reached.assetBaseURL = assetBaseURL
        return reached
    }

    /// Whether this is the caller's shared database as a whole: the zones other users shared
    /// with them, each reached with ``reaching(owner:)``.
    var isSharedDirectory: Bool { database.scope == .shared }

    /// The zones shared with the caller that they accepted, each with its owner and current
    /// sync token.
    func sharedZones() throws -> [Zone] {
        let user = database.owner
        let signer = store.syncTokenSigner
        return try storage.read { reader in
            let incarnation = try reader.incarnation()
            return try reader.zonesShared(with: user).map { try Self.describe($0, $0.zoneID, reader, incarnation, signer) }
        }
    }

    /// `changes/database` of the shared database: every zone shared with the caller, each with
    /// its sync token. Which of them changed is for `changes/zone` to say, zone by zone; a zone
    /// no longer shared answers ZONE_NOT_FOUND there.
    func sharedDatabaseChanges(after token: DatabaseSyncToken?) throws -> DatabaseChanges {
        let database = database
        let signer = store.syncTokenSigner
        let zones = try sharedZones()
        let incarnation = try storage.read { try $0.incarnation() }
        if let token {
            guard token.belongs(to: database) else { throw CloudStoreError.badRequest("The sync token belongs to another database") }
            guard token.incarnation == incarnation else { throw CloudStoreError.changeTokenExpired(Self.resetTokenReason) }
        }
        return DatabaseChanges(
            zones: zones.map { .zone($0) },
            syncToken: DatabaseSyncToken(incarnation: incarnation, database: database, sequence: 0).encoded(with: signer), moreComing: false)
    }
}
