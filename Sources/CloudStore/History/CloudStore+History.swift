/// The record history and the trash: every save keeps the version it replaced, every deletion
/// the record's last version, every zone deletion the zone and its records, for the
/// environment's history retention. Operators read them, restore from the trash, revert a
/// record and bring a zone or a type back to a point in time, each as new changes in the change
/// log (never a rewritten past), so that clients holding older sync tokens receive them. Only an
/// operator (an ``OperatorIdentity``) reaches any of it, and what changes state is audited in
/// the change's transaction.
extension CloudStore {
    // MARK: - Reading

    /// The trash of an environment in `scope`: deleted records (each at its last version) that
    /// were not restored or created again since, and deleted zones not created again since.
    /// Listed a page at a time: a page's ``Trash/next`` is the next one's `after`. A page
    /// continues where the last ended whatever was deleted meanwhile (deletions come first),
    /// so that following the pages lists once each record deleted before the first page (and
    /// not deleted again meanwhile).
    /// - Parameters:
    ///   - limit: the most records listed, most recently deleted first.
    ///   - after: where the page starts: the ``Trash/next`` of the page before; `nil` for the first.
    public func trash(
        _ container: ContainerIdentifier, _ environment: Environment, in scope: HistoryScope, limit: Int = 1000, after: Int64? = nil,
        by actor: OperatorIdentity
    ) throws -> Trash {
        let trash = try self.environment(container, environment).read { reader in
            try Self.trash(in: scope, limit: limit, after: after, reader: reader)
        }
        try auditReadOfVersions(trash.records, by: actor, container, environment, what: "trash of ")
        return trash
    }

    /// The kept versions of one record, newest first, each with the fields the change that
    /// replaced it changed, and the record as it is now.
    public func history(
        ofRecord recordName: String, zoneName: String, in database: DatabaseID, _ container: ContainerIdentifier,
        _ environment: Environment, limit: Int = 1000, by actor: OperatorIdentity
    ) throws -> RecordHistory {
        let history = try self.environment(container, environment).read { reader in
            var filter = VersionFilter(database: database, zoneName: zoneName, recordNames: [recordName])
            filter.newestFirst = true
            let versions = try reader.versions(matching: filter, limit: limit)
            let current = try reader.zone(named: zoneName, in: database).flatMap { try reader.record(named: recordName, in: $0) }?.record
            var next: Record? = current
            var entries: [RecordHistory.Entry] = []
            for version in versions {
                // What replaced a deleted version is nothing, whatever came back later.
                let replacement = version.replacement.isDeletion ? nil : next
                entries.append(
                    RecordHistory.Entry(
                        version: version, changedFields: RecordHistory.changedFields(from: version.record, to: replacement),
                        parentChanged: replacement.map { $0.parent != version.record.parent } ?? (version.record.parent != nil)))
                next = version.record
            }
            return RecordHistory(
                recordName: recordName, zoneID: ZoneID(zoneName: zoneName, ownerRecordName: database.owner), current: current,
                entries: entries)
        }
        if database.scope != .public, history.current != nil || !history.entries.isEmpty {
            try auditRead(
                by: actor, container, environment, target: "history of \(database.scope) of \(database.owner) \(zoneName): \(recordName)")
        }
        return history
    }

    /// How long the environment keeps replaced versions and its trash, in milliseconds, and
    /// whether that is the server's default (no value set for the environment).
    public func historyRetention(_ container: ContainerIdentifier, _ environment: Environment) throws -> (
        milliseconds: Int64, isDefault: Bool
    ) {
        let own = try self.environment(container, environment).read { try $0.historyRetention() }
        return (own ?? configuration.historyRetention, own == nil)
    }

    /// Sets how long the environment keeps replaced versions and its trash; `nil` returns it
    /// to the server's default. Audited.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` for a retention under an hour or over ten years.
    public func setHistoryRetention(
        _ milliseconds: Int64?, _ container: ContainerIdentifier, _ environment: Environment, by actor: OperatorIdentity
    ) throws {
        if let milliseconds, !(Self.historyRetentionRange ~= milliseconds) {
            throw CloudStoreError.badRequest("A history retention is from one hour to 3650 days")
        }
        try movingAuditOutbox(of: container, environment) {
            try self.environment(container, environment).write { writer in
                try writer.setHistoryRetention(milliseconds)
                try writer.record(
                    auditNote(
                        actor, "history.retention", container, environment,
                        target: milliseconds.map { "\($0 / 1000) s" } ?? "server default"))
            }
        }
    }

    /// The retentions an environment may set, in milliseconds: an hour to ten years.
    static let historyRetentionRange: ClosedRange<Int64> = 3_600_000...(3650 * 86_400_000)

    // MARK: - Restoring

    /// Restores deleted records (and the zones they were in, when deleted) from the trash of
    /// `scope`: those named, or those deleted at or after `since`, or every one in the scope.
    /// Without names, deleted zones in the scope come back too, empty or not. Each record comes
    /// back as it was last stored (name, type, fields, references, parent, creation) as a new
    /// change: a client syncing from an older token receives it. One transaction, audited.
    public func restoreFromTrash(
        _ container: ContainerIdentifier, _ environment: Environment, in scope: HistoryScope, recordNames: [String]? = nil,
        since: Int64? = nil, by actor: OperatorIdentity
    ) throws -> RestoreOutcome {
        let now = now
        return try writingHistory(
            container, environment, "trash.restore", target: Self.describe(scope, names: recordNames, since: since), by: actor
        ) {
            writer, notifiers in
            var filter = scope.filter
            filter.recordNames = recordNames
            filter.since = since
            filter.replacements = [.deleted, .zoneDeleted]
            filter.newestOfEachRecord = true
            var outcome = RestoreOutcome()
            var targets: [PlaceKey: [(name: String, record: Record?)]] = [:]
            for version in try writer.versions(matching: filter, limit: Self.everyVersion) {
                targets[PlaceKey(version.database, version.record.zoneID.zoneName), default: []].append(
                    (version.record.recordName, version.record))
            }
            if recordNames == nil {
                for zone in try writer.trashedZones(in: scope.database)
                where scope.contains(zone: zone.zoneName, of: zone.database) && (since ?? .min) <= zone.deleted {
                    targets[PlaceKey(zone.database, zone.zoneName), default: []] += []
                }
            }
            for (place, records) in targets.sorted(by: { $0.key < $1.key }) {
                try Self.writeBack(
                    records.reversed(), zoneName: place.zoneName, database: place.database, createZone: true, onlyMissing: true,
                    writer: writer, now: now, notifier: notifiers(place.database), outcome: &outcome)
            }
            return outcome
        }
    }

    /// Writes version `versionID` of a record back as a normal, conflict-checked save: refused
    /// with a conflict unless the record's change tag is still `changeTag` (when given), or, for
    /// a deleted record, unless it is still deleted. Audited.
    /// - Returns: the record as saved.
    public func revert(
        recordName: String, zoneName: String, in database: DatabaseID, toVersion versionID: Int64, changeTag: String?,
        _ container: ContainerIdentifier, _ environment: Environment, by actor: OperatorIdentity
    ) throws -> Record {
        let version = try self.environment(container, environment).read { try $0.version(id: versionID) }
        guard let version, version.database == database, version.record.zoneID.zoneName == zoneName,
            version.record.recordName == recordName
        else {
            throw CloudStoreError.notFound("Record \(recordName) has no version \(versionID) in zone \(zoneName)")
        }
        var handle = try self.database(container, environment, database: database, as: .operator())
        // Read before the operator is named: the revert's own entry records it, not a read's.
        let current = try handle.lookup([RecordLookup(recordName)], zoneName: zoneName).first?.record
        handle.auditActor = actor
        handle.auditSummary = ("history.revert", "\(database) \(zoneName)/\(recordName) to version \(versionID)")
        // The version's assets need no upload: the history holds their blobs.
        handle.assetsHeldElsewhere = Set(HistoryAssetRows.hashes(of: version.record.fields))
        let old = version.record
        let operation = RecordOperation(
            current == nil ? .create : .replace, recordName: recordName, recordType: old.recordType,
            recordChangeTag: current == nil ? nil : (changeTag ?? current?.changeTag), fields: old.fields, parent: .some(old.parent))
        switch try handle.modify(ModifyRequest(operations: [operation], zoneName: zoneName)).first {
        case .record(let record): return record
        case .failure(_, let error): throw error
        default: throw CloudStoreError.internalError("The revert returned no record")
        }
    }

    /// Brings a zone, or the records of a type (in one zone, or in every zone of the database),
    /// back to their state at `time`: records created since are deleted, records changed since
    /// get back the version they had then, records deleted since are restored; every other
    /// record and zone is untouched. Each is a new change. With `dryRun`, only counts what it
    /// would do, with a sample. One transaction, audited (not a dry run).
    /// - Throws: ``CloudStoreError/badRequest(_:)`` without a database, or without a zone or a type.
    public func restorePoint(
        _ container: ContainerIdentifier, _ environment: Environment, in scope: HistoryScope, at time: Int64, dryRun: Bool,
        by actor: OperatorIdentity
    ) throws -> RestoreOutcome {
        let database = try scope.restoredDatabase("A restore point")
        let now = now
        let plan: (any EnvironmentWriter, (DatabaseID) -> NotificationGenerator?) throws -> RestoreOutcome = { writer, notifiers in
            var outcome = RestoreOutcome()
            outcome.dryRun = dryRun
            let zones =
                try scope.zoneName.map { name in try writer.zone(named: name, in: database).map { [$0] } ?? [] }
                ?? writer.zones(in: database)
            if let zoneName = scope.zoneName, zones.isEmpty {
                throw CloudStoreError.zoneNotFound(ZoneID(zoneName: zoneName, ownerRecordName: database.owner))
            }
            for zone in zones {
                let targets = try Self.stateAt(time, of: zone, recordType: scope.recordType, reader: writer)
                try Self.writeBack(
                    targets, zoneName: zone.zoneID.zoneName, database: database, createZone: false, onlyMissing: false,
                    writer: writer, now: now, notifier: dryRun ? nil : notifiers(database), outcome: &outcome, dryRun: dryRun)
            }
            return outcome
        }
        return try restoring(
            container, environment, dryRun: dryRun, "history.restore-point",
            target: "\(Self.describe(scope, names: nil, since: nil)) at \(time)", by: actor, plan)
    }

    /// Writes records back into a zone as new changes, as a restore does: each record given is
    /// created (when absent) or overwritten (when present, keeping the version it replaces),
    /// each name in `removing` deleted (kept in the trash), the zone created when it does not
    /// exist. Each change is logged and notified like a save, stamped as the operator's, with
    /// the records' creation kept. One transaction, audited as `action`. What a restore from a
    /// backup file and the restores here write through.
    public func writeBackAsNewChanges(
        _ records: [Record], removing names: [String] = [], zoneName: String, in database: DatabaseID, _ container: ContainerIdentifier,
        _ environment: Environment, action: String, by actor: OperatorIdentity
    ) throws -> RestoreOutcome {
        let now = now
        let targets = records.map { (name: $0.recordName, record: Optional($0)) } + names.map { (name: $0, record: Record?.none) }
        return try writingHistory(container, environment, action, target: "\(database) \(zoneName)", by: actor) { writer, notifiers in
            var outcome = RestoreOutcome()
            try Self.writeBack(
                targets, zoneName: zoneName, database: database, createZone: true, onlyMissing: false, writer: writer, now: now,
                notifier: notifiers(database), outcome: &outcome)
            return outcome
        }
    }

    // MARK: - Retention

    /// Forgets, in every container's environments, the record versions and trashed zones
    /// replaced longer ago than the environment's history retention (the server's
    /// ``CloudStoreConfiguration/historyRetention`` unless it sets its own). The server's upkeep
    /// runs it, never a request.
    /// - Returns: how many went.
    @discardableResult
    public func forgetExpiredVersions() throws -> Int {
        var forgotten = 0
        let now = now
        let fallback = configuration.historyRetention
        for container in try containers() {
            for environment in Environment.allCases {
                forgotten += try self.environment(container.identifier, environment).write { writer in
                    try writer.forgetVersions(before: now - (try writer.historyRetention() ?? fallback))
                }
            }
        }
        return forgotten
    }

    // MARK: - How

    /// As many versions as a read may return: every one.
    private static let everyVersion = Int(Int32.max)

    /// A zone of a database, ordered for a stable order of writes.
    private struct PlaceKey: Hashable, Comparable {
        var database: DatabaseID
        var zoneName: String

        init(_ database: DatabaseID, _ zoneName: String) {
            self.database = database
            self.zoneName = zoneName
        }

        static func < (lhs: PlaceKey, rhs: PlaceKey) -> Bool {
            (lhs.database.description, lhs.zoneName) < (rhs.database.description, rhs.zoneName)
        }
    }

    /// Runs a restore's `plan`: with `dryRun`, in a transaction that writes nothing (counted on
    /// the writer's snapshot); else as ``writingHistory(_:_:_:target:by:_:)`` runs it, audited.
    func restoring(
        _ container: ContainerIdentifier, _ environment: Environment, dryRun: Bool, _ action: String, target: String,
        by actor: OperatorIdentity, _ plan: (any EnvironmentWriter, (DatabaseID) -> NotificationGenerator?) throws -> RestoreOutcome
    ) throws -> RestoreOutcome {
        if dryRun { return try self.environment(container, environment).write { writer in try plan(writer, { _ in nil }) } }
        return try writingHistory(container, environment, action, target: target, by: actor, plan)
    }

    /// Runs `body` in one write transaction of the environment with the notifications of the
    /// databases it changes and its audit entry, then wakes the notified tokens.
    func writingHistory(
        _ container: ContainerIdentifier, _ environment: Environment, _ action: String, target: String, by actor: OperatorIdentity,
        _ body: (any EnvironmentWriter, (DatabaseID) -> NotificationGenerator?) throws -> RestoreOutcome
    ) throws -> RestoreOutcome {
        let note = auditNote(actor, action, container, environment, target: target)
        let (outcome, woken) = try movingAuditOutbox(of: container, environment) {
            try self.environment(container, environment).write { writer in
                var notifiers: [DatabaseID: NotificationGenerator] = [:]
                let outcome = try body(writer) { database in
                    if let made = notifiers[database] { return made }
                    let made = notifier(container, environment, database)
                    notifiers[database] = made
                    return made
                }
                try writer.record(note)
                var woken = Set<String>()
                for notifier in notifiers.values { woken.formUnion(try notifier.flush(to: writer)) }
                return (outcome, woken)
            }
        }
        notificationsQueued(woken)
        return outcome
    }

    /// A page of the trash in `scope`, read from `reader`: up to `limit` records older than
    /// version `after`, and the deleted zones on the first page.
    static func trash(in scope: HistoryScope, limit: Int, after: Int64? = nil, reader: any EnvironmentReader) throws -> Trash {
        var filter = scope.filter
        filter.replacements = [.deleted, .zoneDeleted]
        filter.newestOfEachRecord = true
        filter.beforeID = after
        var zones: [PlaceKey: StoredZone?] = [:]
        func zone(_ database: DatabaseID, _ name: String) throws -> StoredZone? {
            let key = PlaceKey(database, name)
            if let known = zones[key] { return known }
            let found = try reader.zone(named: name, in: database)
            zones[key] = found
            return found
        }
        // A record created again since its deletion is not in the trash: versions are read a
        // batch at a time until the page (and one more, which tells that more follow) is full.
        let limit = min(max(limit, 1), everyVersion - 1)
        var records: [RecordVersion] = []
        while records.count <= limit {
            let wanted = limit + 1 - records.count
            let batch = try reader.versions(matching: filter, limit: wanted)
            for version in batch {
                let current = try zone(version.database, version.record.zoneID.zoneName).flatMap {
                    try reader.record(named: version.record.recordName, in: $0)
                }
                if current == nil { records.append(version) }
            }
            guard batch.count == wanted, let last = batch.last else { break }
            filter.beforeID = last.id
        }
        var page = Trash(records: Array(records.prefix(limit)), zones: [])
        if records.count > limit { page.next = page.records.last?.id }
        guard after == nil else { return page }
        var seen = Set<PlaceKey>()
        page.zones = try reader.trashedZones(in: scope.database).filter { trashed in
            guard scope.contains(zone: trashed.zoneName, of: trashed.database),
                seen.insert(PlaceKey(trashed.database, trashed.zoneName)).inserted
            else { return false }
            return try zone(trashed.database, trashed.zoneName) == nil
        }
        return page
    }

    /// What each record of `zone` (of `recordType`, when given) changed after `time` was at
    /// `time`: its version then, or `nil` for a record that did not exist then. Records not
    /// changed since are left out.
    static func stateAt(_ time: Int64, of zone: StoredZone, recordType: String?, reader: any EnvironmentReader) throws -> [(
        name: String, record: Record?
    )] {
        var filter = VersionFilter(database: zone.database, zoneName: zone.zoneID.zoneName, recordType: recordType, since: time + 1)
        filter.newestFirst = false
        var states: [String: Record?] = [:]
        var order: [String] = []
        // The oldest version replaced after `time` is the one the record had then, when it was
        // stored by then; a later one means the record was made after `time`.
        for version in try reader.versions(matching: filter, limit: everyVersion) where states[version.record.recordName] == nil {
            let name = version.record.recordName
            states[name] = version.record.modified.timestamp <= time ? version.record : Record?.none
            order.append(name)
        }
        // Records made after `time` and never changed since left no version.
        try eachRecord(in: zone, ofType: recordType, reader: reader) { stored in
            if stored.record.modified.timestamp > time && states[stored.record.recordName] == nil {
                states[stored.record.recordName] = Record?.none
                order.append(stored.record.recordName)
            }
        }
        return order.map { ($0, states[$0]!) }
    }

    /// Calls `body` with every record of `zone` (of `recordType`, when given), by name, read a
    /// page at a time.
    static func eachRecord(
        in zone: StoredZone, ofType recordType: String?, reader: any EnvironmentReader, _ body: (StoredRecord) throws -> Void
    ) throws {
        var after: String?
        while true {
            let page = try reader.records(in: zone, ofType: recordType, withinTrees: nil, after: after, limit: 1000)
            for stored in page { try body(stored) }
            guard page.count == 1000, let last = page.last else { return }
            after = last.record.recordName
        }
    }

    /// Brings each record of `targets` to its state in one zone as new changes (see
    /// ``writeBackAsNewChanges(_:removing:zoneName:in:_:_:action:by:)``), counting into
    /// `outcome`. With `onlyMissing`, a record that exists is left as it is; with `dryRun`,
    /// nothing is written.
    static func writeBack(
        _ targets: [(name: String, record: Record?)], zoneName: String, database: DatabaseID, createZone: Bool, onlyMissing: Bool,
        writer: any EnvironmentWriter, now: Int64, notifier: NotificationGenerator?, outcome: inout RestoreOutcome, dryRun: Bool = false
    ) throws {
        var zone = try writer.zone(named: zoneName, in: database)
        if zone == nil {
            guard createZone else { throw CloudStoreError.zoneNotFound(ZoneID(zoneName: zoneName, ownerRecordName: database.owner)) }
            outcome.zonesRestored.append(zoneName)
            if dryRun {
                // Every record given would be made in the zone made again.
                var seen = Set<String>()
                for (name, target) in targets where target != nil && seen.insert(name).inserted {
                    outcome.restored += 1
                    outcome.note(zoneName, name)
                }
                return
            }
            zone = try writer.restoreZone(named: zoneName, in: database, created: now)
            try notifier?.zoneChanged(reader: writer)
        }
        guard let zone else { return }
        let schema = try writer.schema()
        let stamp = RecordStamp(timestamp: now, userRecordName: Caller.operatorRecordName, deviceID: "cumulus")
        let replaced = { (kind: RecordVersion.Replacement) in
            VersionReplacement(kind: kind, time: now, modifier: Caller.operatorRecordName, via: nil)
        }
        var seen = Set<String>()
        for (name, target) in targets where seen.insert(name).inserted {
            let current = try writer.record(named: name, in: zone)
            if onlyMissing, current != nil { continue }
            switch (current, target) {
            case (nil, nil):
                continue
            case (let current?, nil):
                outcome.removed += 1
                outcome.note(zoneName, name)
                if dryRun { continue }
                try notifier?.recordChanged(current, .delete, in: zone, reader: writer)
                try writer.keepVersion(of: current, in: zone, replacedBy: replaced(.deleted))
                try writer.delete(current, in: zone)
                try writer.appendChange(
                    ChangeEntry(
                        recordName: name, recordType: current.record.recordType, kind: .deleted,
                        creator: current.record.created.userRecordName,
                        time: now, modifier: Caller.operatorRecordName),
                    in: zone)
            case (let current, let old?):
                // A record that holds what it held then (written back already) is left alone.
                if let current, current.record.changeTag == old.changeTag || Self.sameContent(current.record, old) { continue }
                guard schema.recordType(old.recordType) != nil else {
                    throw CloudStoreError.badRequest(
                        "Record \(name) is of type \(old.recordType), which the schema no longer has: it cannot be restored")
                }
                if current == nil { outcome.restored += 1 } else { outcome.reverted += 1 }
                outcome.note(zoneName, name)
                if dryRun { continue }
                var record = old
                record.zoneID = zone.zoneID
                record.changeTag = ChangeTag.make()
                record.modified = stamp
                let stored: StoredRecord
                if let current {
                    try writer.keepVersion(of: current, in: zone, replacedBy: replaced(.updated))
                    stored = try writer.update(current, to: record, in: zone)
                } else if let inserted = try writer.insert(record, in: zone) {
                    stored = inserted
                } else {
                    throw CloudStoreError.internalError("Record \(name) appeared while it was restored")
                }
                try writer.appendChange(
                    ChangeEntry(
                        recordName: name, recordType: record.recordType, kind: current == nil ? .created : .updated,
                        creator: record.created.userRecordName, time: now, modifier: Caller.operatorRecordName),
                    in: zone)
                try notifier?.recordChanged(stored, current == nil ? .create : .update, in: zone, reader: writer)
            }
        }
    }

    /// Whether two versions of a record hold the same: type, fields and parent.
    private static func sameContent(_ one: Record, _ other: Record) -> Bool {
        one.recordType == other.recordType && one.fields == other.fields && one.parent == other.parent
    }

    /// How the audit trail names a scope: `private(_u1) Notes, type Note, 2 records, since 1700000000000`.
    static func describe(_ scope: HistoryScope, names: [String]?, since: Int64?) -> String {
        var parts = [scope.database?.description ?? "every database"]
        if let zone = scope.zoneName { parts[0] += " \(zone)" }
        if let type = scope.recordType { parts.append("type \(type)") }
        if let names { parts.append(names.count == 1 ? "record \(names[0])" : "\(names.count) records") }
        if let since { parts.append("since \(since)") }
        return parts.joined(separator: ", ")
    }
}
