extension CloudDatabase {
    /// The database a request addressing a zone of `owner` reaches: in the shared database,
    /// `owner`'s private database as the caller's shares open it; elsewhere this database, whose
    /// zones all have its own owner. An operator acting as a user in that user's shared
    /// database reaches it as the user: the user's shares decide what it holds for them.
    public func reaching(owner: String?) -> CloudDatabase {
        guard database.scope == .shared, let owner, owner != database.owner else { return self }
        // The operator may do anything, so as the operator the shares would open nothing, or
        // everything: acting as the participant is what "act as user" means here.
        let participant: Caller = if case .operator = caller { .user(database.owner) } else { caller }
        var reached = CloudDatabase(
            store: store, storage: storage, container: container, environment: environment, database: .private(owner),
            caller: participant)
        reached.viaShare = true
        reached.actsForOperator = participant != caller
        reached.assetBaseURL = assetBaseURL
        reached.assetCredential = assetCredential
        reached.credential = credential
        reached.auditActor = auditActor
        reached.auditPlace = auditPlace
        reached.auditSummary = auditSummary
        reached.accessTrace = accessTrace
        return reached
    }

    /// Whether this is the caller's shared database as a whole: the zones other users shared
    /// with them, each reached with ``reaching(owner:)``.
    var isSharedDirectory: Bool { database.scope == .shared }

    /// The zones shared with the caller that they accepted, each with its owner and current
    /// sync token.
    func sharedZones() throws -> [Zone] {
        try storage.read { reader in try sharedZones(reader, incarnation: try reader.incarnation()) }
    }

    private func sharedZones(_ reader: any EnvironmentReader, incarnation: String) throws -> [Zone] {
        try reader.zonesShared(with: database.owner).map { try Self.describe($0, $0.zoneID, reader, incarnation, store.syncTokenSigner) }
    }

    /// `changes/database` of the shared database: every zone shared with the caller, each with
    /// its sync token. Which of them changed is for `changes/zone` to say, zone by zone; a zone
    /// no longer shared answers ZONE_NOT_FOUND there.
    func sharedDatabaseChanges(after token: DatabaseSyncToken?) throws -> DatabaseChanges {
        let database = database
        let signer = store.syncTokenSigner
        // The zones and the incarnation their tokens carry, read together.
        let (zones, incarnation) = try storage.read { reader in
            let incarnation = try reader.incarnation()
            return (try sharedZones(reader, incarnation: incarnation), incarnation)
        }
        if let token {
            guard token.belongs(to: database) else { throw CloudStoreError.badRequest("The sync token belongs to another database") }
            guard token.incarnation == incarnation else { throw CloudStoreError.changeTokenExpired(Self.resetTokenReason) }
        }
        return DatabaseChanges(
            zones: zones.map { .zone($0) },
            syncToken: DatabaseSyncToken(incarnation: incarnation, database: database, sequence: 0).encoded(with: signer), moreComing: false
        )
    }
}
