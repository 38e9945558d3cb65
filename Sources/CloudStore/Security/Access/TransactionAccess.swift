/// An ``AccessPolicy`` applied inside one storage transaction: it reads the caller's custom roles
/// at most once, and only when a grant to a custom role could decide.
final class TransactionAccess {
    let policy: AccessPolicy
    private let reader: any EnvironmentReader
    private var roles: Set<String>?

    init(policy: AccessPolicy, reader: any EnvironmentReader) {
        self.policy = policy
        self.reader = reader
    }

    private func heldRoles() throws -> Set<String> {
        if let roles { return roles }
        let read = try policy.caller.signedInUser.map { try reader.roles(of: $0) } ?? []
        roles = read
        return read
    }

    /// Decides `permission` on a record of `type` created by `creator` (`nil` for a new record),
    /// recording the decision in the request's trace when it refuses, or the request is sampled.
    /// - Parameters:
    ///   - record: the record's name, for the trace.
    ///   - zone: the record's zone, for the trace.
    @inline(__always)
    func decide(
        _ permission: Permission, on type: RecordTypeDefinition, creator: String?, record: String? = nil, zone: String? = nil
    ) throws -> AccessDecision {
        let decision = try policy.decide(permission, on: type, creator: creator, roles: heldRoles)
        if let trace = policy.trace, trace.wants(decision, permission, recordType: type.name) {
            try recordExplanation(permission, on: type, creator: creator, record: record, zone: zone, in: trace)
        }
        return decision
    }

    /// Kept out of ``decide(_:on:creator:record:zone:)``, which runs for every record of a page.
    @inline(never)
    private func recordExplanation(
        _ permission: Permission, on type: RecordTypeDefinition, creator: String?, record: String?, zone: String?, in trace: RequestTrace
    ) throws {
        trace.record(try policy.explain(permission, on: type, creator: creator, recordName: record, zone: zone, roles: heldRoles))
    }

    /// Records that no record of `type` is readable to the caller, which refuses a query or a
    /// query subscription: explained for a record the caller created, since even those are not.
    func recordRefusedRead(of type: RecordTypeDefinition, zone: String?) {
        guard let trace = policy.trace else { return }
        let creator = policy.caller.signedInUser ?? ""
        if let explanation = try? policy.explain(.read, on: type, creator: creator, recordName: nil, zone: zone, roles: heldRoles) {
            trace.record(explanation)
        }
    }

    /// Records a refusal the caller's shares decide: `given` is what they give on the record.
    func recordSharedRefusal(
        _ permission: Permission, _ reason: AccessDecision.Reason, recordName: String, recordType: String?, zone: StoredZone,
        given: SharePermission
    ) {
        policy.trace?.record(
            policy.explainShared(
                permission, reason, recordName: recordName, recordType: recordType, zone: zone.zoneID.zoneName, given: given.rawValue))
    }

    // MARK: - Shares

    /// The shares of each zone asked about, by zone key, read once per transaction.
    private var shares: [Int64: [Share]] = [:]
    /// The caller's share scope per zone key.
    private var scopes: [Int64: ShareScope] = [:]
    /// Zones by name, for records that name only their zone.
    private var zones: [String: StoredZone?] = [:]

    /// The shares of `zone`; none in the public database, where nothing is shared.
    func shares(in zone: StoredZone) throws -> [Share] {
        guard zone.database.scope == .private else { return [] }
        if let known = shares[zone.key] { return known }
        let read = try reader.shares(in: zone)
        shares[zone.key] = read
        return read
    }

    /// Forgets what was read of `zone`'s shares, after the transaction changed them.
    func sharesChanged(in zone: StoredZone) {
        shares[zone.key] = nil
        scopes[zone.key] = nil
    }

    /// What the caller reaches in `zone` through shares.
    func shareScope(in zone: StoredZone) throws -> ShareScope {
        if let scope = scopes[zone.key] { return scope }
        let scope = ShareScope(shares: try shares(in: zone), user: policy.caller.signedInUser ?? "")
        scopes[zone.key] = scope
        return scope
    }

    /// The zone `name` of the database, when the caller may know of it: reached through shares,
    /// only a zone with something shared with the caller.
    func visibleZone(named name: String) throws -> StoredZone? {
        guard let zone = try reader.zone(named: name, in: policy.database) else { return nil }
        if policy.viaShare, try shareScope(in: zone).isEmpty { return nil }
        return zone
    }

    /// `record` with the name of the share whose root it is, when it is one.
    @inline(__always)
    func markingShare(_ record: Record, in zone: StoredZone) throws -> Record {
        // Only a private database's zones have shares. Inlined, so that every record of a page
        // elsewhere goes out without a copy made for nothing.
        guard zone.database.scope == .private else { return record }
        return try markedShare(record, in: zone)
    }

    @inline(never)
    private func markedShare(_ record: Record, in zone: StoredZone) throws -> Record {
        var record = record
        record.share = try shares(in: zone).first { $0.rootRecordName == record.recordName }?.recordName
        return record
    }

    /// The permission the caller's shares give on `record`.
    func sharePermission(on record: Record, in zone: StoredZone) throws -> SharePermission {
        if record.recordType == Share.recordType, let share = record.sharing {
            // Participants read the share they are in; only the owner changes it.
            return share.permission(of: policy.caller.signedInUser ?? "") == .none ? .none : .readOnly
        }
        return try shareScope(in: zone).permission(on: record.recordName, parent: record.parent, in: zone, reader: reader)
    }

    private func zone(of record: Record) throws -> StoredZone? {
        if let zone = zones[record.zoneID.zoneName] { return zone }
        let zone = try reader.zone(named: record.zoneID.zoneName, in: policy.database)
        zones[record.zoneID.zoneName] = zone
        return zone
    }

    /// Whether the caller may read `record` through shares. Kept out of `canRead(_:in:)`, which
    /// runs for every record of a page, so that it stays small enough to inline.
    @inline(never)
    private func canReadShared(_ record: Record) throws -> Bool {
        guard let zone = try zone(of: record) else { return false }
        return try sharePermission(on: record, in: zone) != .none
    }

    /// Whether the caller may learn of the deletion `entry` through shares.
    func canReadSharedDeletion(_ entry: ChangeEntry, in zone: StoredZone) throws -> Bool {
        let scope = try shareScope(in: zone)
        return scope.wholeZone != .none || entry.tree.map { (scope.trees[$0] ?? .none) != .none } == true
    }

    // MARK: - Reading

    /// Whether the caller may read `record`, whose type `schema` defines. In the public database
    /// only a READ grant gives it: WRITE does not imply READ, so a caller who may change a record
    /// but not read it gets only its name and change tag back from a save.
    func canRead(_ record: Record, in schema: Schema) throws -> Bool {
        try canRead(record, of: schema.recordType(record.recordType))
    }

    /// Whether the caller may read `record`, of `type` (`nil` when the schema has none), asked
    /// for only in the public database. Inlined: it runs for every record of a page.
    @inline(__always)
    func canRead(_ record: Record, of type: @autoclosure () -> RecordTypeDefinition?) throws -> Bool {
        if policy.viaShare { return try canReadShared(record) }
        if policy.isAdministrator || policy.database.scope != .public { return true }
        guard let type = type() else { return false }
        return try decide(.read, on: type, creator: record.created.userRecordName, record: record.recordName, zone: record.zoneID.zoneName)
            .isAllowed
    }

    /// Whether the caller may learn of a change to a record of `recordType` created by
    /// `creator`: what a change feed asks of a deletion, whose record is gone.
    func canRead(recordType: String, creator: String, in schema: Schema) throws -> Bool {
        // Deletions reached through shares are decided by `canReadSharedDeletion(_:in:)`.
        if policy.viaShare { return false }
        if policy.isAdministrator || policy.database.scope != .public { return true }
        guard let type = schema.recordType(recordType) else { return false }
        return try decide(.read, on: type, creator: creator).isAllowed
    }

    /// Which records of `type` the caller may read.
    func readScope(of type: RecordTypeDefinition) throws -> ReadScope {
        // Outside the public database every type is read whole; reached through shares, the
        // query itself is bounded by the zone's shares.
        if policy.isAdministrator || policy.database.scope != .public { return .all }
        return try policy.readScope(of: type, roles: heldRoles)
    }
}
