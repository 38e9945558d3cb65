/// What changed in a database's zones after a sync token, as `changes/database` answers: each
/// zone created or changed since, with its current sync token, and each zone deleted since.
public struct DatabaseChanges: Hashable, Sendable {
    /// Zones created or changed (``ZoneResult/zone(_:)``) and deleted (``ZoneResult/deleted(_:)``),
    /// each once, oldest change first.
    public var zones: [ZoneResult]
    /// Where this page ends: the token to send for the next one.
    public var syncToken: String
    /// Whether changes after this page are waiting.
    public var moreComing: Bool
}

extension CloudDatabase {
    /// The zones of the database created, changed or deleted after `syncToken` (from the start
    /// without one), each once, at most `resultsLimit` per page.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` for a token that is forged, damaged, a zone's,
    ///   or another database's; ``CloudStoreError/changeTokenExpired(_:)`` for one from before
    ///   the environment was reset or restored, or from before a zone deletion the retention
    ///   has since forgotten.
    public func databaseChanges(syncToken: String?, resultsLimit: Int? = nil) throws -> DatabaseChanges {
        let limit = min(max(resultsLimit ?? Self.defaultChangesLimit, 1), QueryRequest.maximumResults)
        let signer = store.syncTokenSigner
        let token = try syncToken.map { try DatabaseSyncToken.decode($0, with: signer) }
        if isSharedDirectory { return try sharedDatabaseChanges(after: token) }
        if viaShare {
            throw CloudStoreError.badRequest("changes/database of the shared database covers every owner's zones: send it without a zoneID")
        }
        let database = database
        return try storage.read { reader in
            let incarnation = try reader.incarnation()
            var after: Int64 = 0
            if let token {
                guard token.belongs(to: database) else { throw CloudStoreError.badRequest("The sync token belongs to another database") }
                guard token.incarnation == incarnation else { throw CloudStoreError.changeTokenExpired(Self.resetTokenReason) }
                guard token.sequence >= (try reader.zoneLogHorizon(in: database)) else {
                    throw CloudStoreError.changeTokenExpired(Self.retentionTokenReason)
                }
                after = token.sequence
            }
            let last = try reader.lastZoneLogSequence(in: database)
            guard after <= last else { throw CloudStoreError.badRequest("The sync token is not valid") }
            let entries = try reader.zoneLog(in: database, after: after, limit: limit)
            var zones: [ZoneResult] = []
            for entry in entries {
                let zoneID = ZoneID(zoneName: entry.zoneName, ownerRecordName: database.owner)
                // A first fetch lists deletions too: harmless to a client that never held the zone,
                // and its later pages could not tell them apart anyway.
                if entry.deleted {
                    zones.append(.deleted(zoneID))
                } else {
                    zones.append(
                        .zone(try Self.describe(try reader.zone(named: entry.zoneName, in: database), zoneID, reader, incarnation, signer)))
                }
            }
            let next = entries.last?.sequence ?? after
            return DatabaseChanges(
                zones: zones,
                syncToken: DatabaseSyncToken(incarnation: incarnation, database: database, sequence: next).encoded(with: signer),
                moreComing: next < last)
        }
    }

    /// Why a token from before a reset or restore is refused.
    static let resetTokenReason =
        "The sync token is from before this environment was reset or restored; fetch everything again, without a token"
    /// Why a token older than the tombstone retention is refused.
    static let retentionTokenReason =
        "The sync token is older than the tombstones this server keeps; fetch everything again, without a token"
}
