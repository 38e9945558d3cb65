/// One page of a zone's records in record-name order, listed without a query.
public struct RecordListing: Sendable {
    /// The records of the page, by name.
    public var records: [Record]
    /// The record name the next page starts after; `nil` on the last page.
    public var continuation: String?
}

/// A record of a zone that points at another: through a REFERENCE field, or as its parent.
public struct RecordReferrer: Hashable, Sendable {
    /// The referring record's name.
    public var recordName: String
    /// Its record type.
    public var recordType: String
    /// The field holding the reference; `nil` when the record names the other as its parent.
    public var field: String?
}

/// The records of a zone found pointing at one record, from a bounded scan of the zone.
public struct RecordReferrers: Sendable {
    /// The referring records, by name.
    public var referrers: [RecordReferrer]
    /// Whether the whole zone was scanned; `false` when the scan stopped at its bound, so that
    /// more records may refer to it.
    public var complete: Bool
}

extension CloudDatabase {
    /// The most records one page of ``listRecords(zoneName:recordType:after:limit:)`` holds.
    public static let maximumListing = 200
    /// How many records ``referrers(of:zoneName:)`` reads at most.
    public static let referrerScanBound = 1_000

    /// A page of a zone's records in record-name order, read from storage directly: no index
    /// of the schema's is needed, so a type made just in time can be browsed before it has
    /// any. For operators only; CloudKit's clients query. An operator acting as a participant
    /// lists only what the participant's shares give them: the shared hierarchies, or the
    /// whole zone when it is shared.
    /// - Parameters:
    ///   - recordType: only records of this type; every type when `nil`.
    ///   - after: the ``RecordListing/continuation`` of the page before.
    /// - Throws: ``CloudStoreError/accessDenied(_:)`` for any caller but an operator;
    ///   ``CloudStoreError/zoneNotFound(_:)`` for a zone that does not exist, or that nothing
    ///   of is shared with the participant.
    public func listRecords(zoneName: String, recordType: String? = nil, after: String? = nil, limit: Int) throws -> RecordListing {
        try requireOperator("list a zone's records without a query")
        let limit = min(max(limit, 1), Self.maximumListing)
        let stored = try storage.read { reader -> [StoredRecord] in
            guard let (zone, roots) = try reachedZone(named: zoneName, reader) else { return [] }
            // One more than asked, to know whether a next page exists.
            return try reader.records(in: zone, ofType: recordType, withinTrees: roots, after: after, limit: limit + 1)
        }
        let page = stored.prefix(limit).map(\.record)
        try auditRead(of: page.map(\.recordName), zoneName: zoneName)
        return RecordListing(records: present(Array(page)), continuation: stored.count > limit ? page.last?.recordName : nil)
    }

    /// The records of the zone that point at `recordName` through a REFERENCE or REFERENCE_LIST
    /// field or as their parent, whatever the reference's action. The zone is read in pages, up
    /// to ``referrerScanBound`` records, so a very large zone answers in bounded time. Acting as a
    /// participant, only the records their shares give them are read.
    /// - Throws: ``CloudStoreError/accessDenied(_:)`` for any caller but an operator.
    public func referrers(of recordName: String, zoneName: String) throws -> RecordReferrers {
        try requireOperator("list the records referring to a record")
        let found = try storage.read { reader in
            guard let (zone, roots) = try reachedZone(named: zoneName, reader) else {
                return RecordReferrers(referrers: [], complete: true)
            }
            var found: [RecordReferrer] = []
            var after: String?
            var scanned = 0
            while scanned < Self.referrerScanBound {
                let asked = min(Self.maximumListing, Self.referrerScanBound - scanned)
                let page = try reader.records(in: zone, ofType: nil, withinTrees: roots, after: after, limit: asked)
                for stored in page {
                    let record = stored.record
                    if record.parent == recordName {
                        found.append(RecordReferrer(recordName: record.recordName, recordType: record.recordType, field: nil))
                    }
                    for (field, value) in record.fields.sorted(by: { $0.key < $1.key })
                    where value.references.contains(where: { $0.recordName == recordName }) {
                        found.append(RecordReferrer(recordName: record.recordName, recordType: record.recordType, field: field))
                    }
                }
                scanned += page.count
                guard page.count == asked, let last = page.last else {
                    return RecordReferrers(referrers: found, complete: true)
                }
                after = last.record.recordName
            }
            return RecordReferrers(referrers: found, complete: false)
        }
        try auditRead(of: found.referrers.map(\.recordName), zoneName: zoneName, what: "referrers of \(recordName) in ")
        return found
    }

    /// The stored zone called `name` and, reached through shares, the roots of the hierarchies
    /// shared with the caller in it (`nil` when the whole zone is shared, or outside shares);
    /// `nil` for an empty default zone.
    /// - Throws: ``CloudStoreError/zoneNotFound(_:)`` for a created zone's name that does not
    ///   exist, or, through shares, one nothing of is shared with the caller.
    func reachedZone(named name: String, _ reader: any EnvironmentReader) throws -> (zone: StoredZone, roots: [String]?)? {
        guard viaShare else { return try zone(named: name, reader).map { ($0, nil) } }
        let access = TransactionAccess(policy: policy, reader: reader)
        guard let zone = try access.visibleZone(named: name) else {
            throw CloudStoreError.zoneNotFound(ZoneID(zoneName: name, ownerRecordName: database.owner))
        }
        let scope = try access.shareScope(in: zone)
        return (zone, scope.wholeZone == .none ? scope.trees.keys.sorted() : nil)
    }

    /// The stored zone called `name`, if it exists; throws for a created zone's name that does not.
    private func zone(named name: String, _ reader: any EnvironmentReader) throws -> StoredZone? {
        if let zone = try reader.zone(named: name, in: database) { return zone }
        // The default zone holds nothing until its first record.
        guard name == ZoneID.defaultZoneName else {
            throw CloudStoreError.zoneNotFound(ZoneID(zoneName: name, ownerRecordName: database.owner))
        }
        return nil
    }

    private func requireOperator(_ what: String) throws {
        if case .operator = caller { return }
        guard actsForOperator else { throw CloudStoreError.accessDenied("Only an operator may \(what)") }
    }
}
