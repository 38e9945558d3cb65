/// What changed in a zone after a sync token, as `changes/zone` answers: each changed record
/// once, as it is now, or as deleted; the token to ask from next; and whether more is waiting.
public struct ZoneChanges: Hashable, Sendable {
    /// The zone.
    public var zoneID: ZoneID
    /// Changed records as they are now (trimmed to the desired keys) and deleted ones as
    /// ``RecordResult/deleted(recordName:zoneID:)``, in the order of their latest change.
    public var records: [RecordResult]
    /// Where this page ends: the token to send for the next one.
    public var syncToken: String
    /// Whether changes after this page are waiting.
    public var moreComing: Bool
}

extension CloudDatabase {
    /// The changes a page holds when the request names no `resultsLimit`.
    public static let defaultChangesLimit = 200

    /// The zone's changes after `syncToken` (from the start without one), a page covering at
    /// most `resultsLimit` changes of its log. Each record comes once across the pages of a
    /// follow, as it is now, in the page holding its latest change in the log as that page is
    /// read; a record deleted last comes once, as deleted, even when it was created after the
    /// token. A page may therefore hold fewer records than the changes it covers; its token
    /// still stands past all of them. A feed never shows a record, nor the deletion of one, that
    /// the caller may not read.
    ///
    /// With `reverse`, pages come newest change first, and the pages themselves from the newest
    /// to the oldest, down to the token's position; the last page's token then stands where the
    /// log stood when the first page was asked for. A record comes in the page of its latest
    /// change, so an older page never takes back what a newer one gave; one changed again
    /// during the follow comes with the changes after its last token.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` for a token that is forged, damaged or of
    ///   another zone; ``CloudStoreError/changeTokenExpired(_:)`` for one from before the
    ///   environment was reset or restored, of the zone before it was deleted and made again,
    ///   or from before deletions the tombstone retention has forgotten since;
    ///   ``CloudStoreError/zoneNotFound(_:)``.
    public func zoneChanges(
        zoneName: String = ZoneID.defaultZoneName, syncToken: String?, resultsLimit: Int? = nil, desiredKeys: [String]? = nil,
        desiredRecordTypes: [String]? = nil, reverse: Bool = false
    ) throws -> ZoneChanges {
        let limit = min(max(resultsLimit ?? Self.defaultChangesLimit, 1), QueryRequest.maximumResults)
        let signer = store.syncTokenSigner
        let token = try syncToken.map { try SyncToken.decode($0, with: signer) }
        let (database, policy) = (database, policy)
        var changes = try storage.read { reader in
            let zoneID = ZoneID(zoneName: zoneName, ownerRecordName: database.owner)
            let access = TransactionAccess(policy: policy, reader: reader)
            let stored = try access.visibleZone(named: zoneName)
            guard stored != nil || (zoneID.isDefaultZone && !policy.viaShare) else { throw CloudStoreError.zoneNotFound(zoneID) }
            let incarnation = try reader.incarnation()
            var after: Int64 = 0
            if let token {
                guard token.incarnation == incarnation else { throw CloudStoreError.changeTokenExpired(Self.resetTokenReason) }
                // A default zone's token from before its first record, when it had no log yet, starts from the beginning.
                guard token.zoneKey == (stored?.key ?? 0) || (token.zoneKey == 0 && token.sequence == 0) else {
                    // Zone keys are never given twice, and each new zone takes a larger one: an
                    // older key no zone of the database holds now is this zone's before it was
                    // deleted and made again. Its holder must fetch the zone again from the
                    // start, as after a reset; a token of a zone that exists is a mix-up.
                    if let stored, token.zoneKey < stored.key, try !reader.zones(in: database).contains(where: { $0.key == token.zoneKey })
                    {
                        throw CloudStoreError.changeTokenExpired(
                            "The zone was deleted and made again since this sync token; fetch its changes again from the start")
                    }
                    throw CloudStoreError.badRequest("The sync token belongs to another zone")
                }
                after = token.sequence
            }
            guard let zone = stored else {
                return ZoneChanges(
                    zoneID: zoneID, records: [],
                    syncToken: SyncToken(incarnation: incarnation, zoneKey: 0, sequence: 0).encoded(with: signer),
                    moreComing: false)
            }
            let last = try reader.lastChangeSequence(in: zone)
            guard after <= last else { throw CloudStoreError.badRequest("The sync token is not valid") }
            // A token may have been made before deletions the retention has forgotten since:
            // answering it would leave those records with its holder.
            if token != nil, after < (try reader.changeHorizon(in: zone)) {
                throw CloudStoreError.changeTokenExpired(Self.retentionTokenReason)
            }
            // Reverse: from the newest change not yet handed out, down toward the token's position.
            let window = reverse ? (token?.reverse ?? (upper: last, final: last)) : nil
            let entries = try reader.changesWithRecords(in: zone, after: after, through: window?.upper, limit: limit)
            let schema = try reader.schema()
            var records: [RecordResult] = []
            // Each record once, at its latest change: one changed again later comes with that change,
            // in this page or a later one (or, reversed, came in a newer page or comes after the follow).
            for (entry, current, superseded) in entries where !superseded {
                if let types = desiredRecordTypes, !types.contains(entry.recordType) { continue }
                if entry.kind == .deleted {
                    guard
                        policy.viaShare
                            ? try access.canReadSharedDeletion(entry, in: zone)
                            : try access.canRead(recordType: entry.recordType, creator: entry.creator, in: schema)
                    else { continue }
                    records.append(.deleted(recordName: entry.recordName, zoneID: zoneID))
                } else if let current {
                    guard try access.canRead(current.record, in: schema) else { continue }
                    records.append(.record(try access.markingShare(current.record, in: zone).keeping(desiredKeys)))
                }
                // A record whose latest change is not a deletion is gone only when the retention forgot
                // that deletion: a token from before it is refused as expired.
            }
            if let window {
                // The oldest change handed out so far; below it, down to `after`, is still to come.
                let lowest = entries.last?.entry.sequence ?? after
                let done = entries.count < limit || lowest <= after + 1
                let next =
                    done
                    ? SyncToken(incarnation: incarnation, zoneKey: zone.key, sequence: window.final)
                    : SyncToken(
                        incarnation: incarnation, zoneKey: zone.key, sequence: after, reverse: (upper: lowest - 1, final: window.final))
                return ZoneChanges(
                    zoneID: zoneID, records: records, syncToken: next.encoded(with: signer), moreComing: !done || window.final < last)
            }
            let next = entries.last?.entry.sequence ?? after
            return ZoneChanges(
                zoneID: zoneID, records: records,
                syncToken: SyncToken(incarnation: incarnation, zoneKey: zone.key, sequence: next).encoded(with: signer),
                moreComing: next < last)
        }
        changes.records = present(changes.records)
        return changes
    }
}
