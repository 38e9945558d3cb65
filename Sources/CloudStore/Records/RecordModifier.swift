import Foundation

/// Applies a `records/modify` request with CloudKit's rules, inside one storage transaction:
/// change tags, the force variants, atomic batches in custom zones, just-in-time schema,
/// reference validation and cascading deletes, the 1 MB and 200-operation limits, and a change
/// log entry for every record changed.
///
/// Each operation checks everything that can refuse it before it writes anything, so an
/// operation that fails has written nothing: operations of a non-atomic batch need no savepoint
/// of their own (savepoints cost SQLite real work per page), and an atomic batch needs one.
struct RecordModifier {
    let database: DatabaseID
    let caller: Caller
    let evolution: SchemaEvolution
    /// The time every change of the request is stamped with, in milliseconds since 1970.
    let now: Int64
    /// Told of every record change, to make the notifications of the subscriptions it fires.
    var notifier: NotificationGenerator? = nil
    /// Checks the receipts of the assets a save carries; without it, assets are refused.
    var receipts: AssetReceiptCheck? = nil
    /// Whether the caller reaches `database`, another user's, through shares.
    var viaShare = false
    /// The users the request's share saves may name.
    var participantUsers = ShareParticipants()
    /// The API token or server key the request carried, packed once for every change it logs.
    var via: String?
    /// Where the request's access decisions are recorded, when it keeps them.
    var trace: RequestTrace?

    private var policy: AccessPolicy { AccessPolicy(caller: caller, database: database, viaShare: viaShare, trace: trace) }

    /// Thrown out of an atomic batch's savepoint to undo it.
    private struct AtomicAbort: Error {
        var index: Int
        var error: CloudStoreError
    }

    /// Applies `request`; one result per operation, in order.
    /// - Throws: request-level failures only (too many operations, a caller who may not write,
    ///   the same record twice); per-operation failures are results.
    func apply(_ request: ModifyRequest, to writer: any EnvironmentWriter) throws -> [RecordResult] {
        let operations = request.operations
        guard operations.count <= ModifyRequest.maximumOperations else {
            throw CloudStoreError.badRequest(
                "A request may hold at most \(ModifyRequest.maximumOperations) operations; this one has \(operations.count)")
        }
        try policy.checkCanModify()

        let names = operations.map { Self.name(of: $0, at: now) }
        var seen = Set<String>()
        for name in names.compactMap({ $0 }) where !seen.insert(name).inserted {
            throw CloudStoreError.badRequest(
                "Record '\(name)' appears in more than one operation; a request may hold one operation per record")
        }

        let access = TransactionAccess(policy: policy, reader: writer)
        let zone: StoredZone
        if let existing = try access.visibleZone(named: request.zoneName) {
            zone = existing
        } else if request.zoneName == ZoneID.defaultZoneName, !viaShare {
            zone = try writer.createZone(named: ZoneID.defaultZoneName, in: database, created: now)
        } else {
            let zoneID = ZoneID(zoneName: request.zoneName, ownerRecordName: database.owner)
            return names.map { .failure(recordName: $0, error: .zoneNotFound(zoneID)) }
        }

        // Every record the batch names, locked at once in one order: batches from two processes
        // over the same records then queue rather than deadlock.
        try writer.lockRecords(named: names.compactMap { $0 }, in: zone)
        let atomic = request.atomic && !zone.zoneID.isDefaultZone

        if atomic {
            var results: [RecordResult] = []
            do {
                try writer.savepoint {
                    for (index, operation) in operations.enumerated() {
                        do {
                            results.append(
                                try apply(operation, named: names[index], request: request, zone: zone, writer: writer, access: access))
                        } catch let error as CloudStoreError where error.isPerItem {
                            throw AtomicAbort(index: index, error: error)
                        }
                    }
                }
            } catch let abort as AtomicAbort {
                notifier?.discard()
                let culprit = names[abort.index].map { "record '\($0)'" } ?? "operation \(abort.index + 1)"
                return names.enumerated().map { index, name in
                    index == abort.index
                        ? .failure(recordName: name, error: abort.error)
                        : .failure(
                            recordName: name, error: .atomicFailure("Atomic batch failed because \(culprit) failed: \(abort.error.reason)"))
                }
            }
            return results
        }

        return try operations.enumerated().map { index, operation in
            do {
                return try apply(operation, named: names[index], request: request, zone: zone, writer: writer, access: access)
            } catch let error as CloudStoreError where error.isPerItem {
                return .failure(recordName: names[index], error: error)
            }
        }
    }

    /// The name of the record `operation` saves: the one it gives, else a new one for a save
    /// that may make a record (a create or a forced save); `nil` for the kinds that need the
    /// client's name.
    static func name(of operation: RecordOperation, at now: Int64) -> String? {
        operation.recordName
            ?? (operation.kind.isDelete || operation.kind == .update || operation.kind == .replace
                ? nil : SecureToken.recordName(at: now))
    }

    // MARK: - One operation

    private func apply(
        _ operation: RecordOperation, named name: String?, request: ModifyRequest, zone: StoredZone,
        writer: any EnvironmentWriter, access: TransactionAccess
    ) throws -> RecordResult {
        guard let name else {
            throw CloudStoreError.badRequest("recordName is required to \(operation.kind.rawValue) a record")
        }
        guard Self.isValidRecordName(name) else {
            throw CloudStoreError.badRequest(
                "Invalid record name '\(name)': it must be 1 to 255 bytes without control characters")
        }
        let desiredKeys = operation.desiredKeys ?? request.desiredKeys
        if try isShareOperation(operation, named: name, in: zone, access: access) {
            return try applyShare(operation, named: name, in: zone, writer: writer, access: access)
        }
        if operation.kind == .create {
            // The insert itself finds out whether the name is taken.
            return try save(
                operation, named: name, replacing: nil, in: zone, writer: writer, access: access, desiredKeys: desiredKeys)
        }
        let existing = try writer.record(named: name, in: zone)
        if let existing {
            // Permission first, so that a caller who may not write learns nothing from a
            // change-tag conflict.
            if viaShare {
                try requireSharedWrite(existing.record, operation.kind, in: zone, access: access)
            } else {
                try requireWrite(existing.record, writer: writer, access: access)
            }
        }

        switch operation.kind {
        case .create:
            preconditionFailure("creates are saved above")
        case .update, .replace, .delete:
            guard let existing else { throw CloudStoreError.notFound("Record not found") }
            guard let tag = operation.recordChangeTag else {
                throw CloudStoreError.badRequest(
                    "recordChangeTag is required to \(operation.kind.rawValue) record '\(name)'; force\(operation.kind.rawValue.capitalized) ignores it"
                )
            }
            guard tag == existing.record.changeTag else {
                throw CloudStoreError.conflict(
                    "client oplock error updating record", serverRecord: try readable(existing.record, writer: writer, access: access))
            }
            if operation.kind == .delete {
                return try delete(existing, in: zone, writer: writer, access: access)
            }
            return try save(
                operation, named: name, replacing: existing, in: zone, writer: writer, access: access,
                desiredKeys: desiredKeys)
        case .forceUpdate, .forceReplace:
            return try save(
                operation, named: name, replacing: existing, in: zone, writer: writer, access: access,
                desiredKeys: desiredKeys)
        case .forceDelete:
            guard let existing else { throw CloudStoreError.notFound("Record not found") }
            return try delete(existing, in: zone, writer: writer, access: access)
        }
    }

    /// Refuses to change `record` unless a grant lets the caller write it.
    private func requireWrite(_ record: Record, writer: any EnvironmentWriter, access: TransactionAccess) throws {
        guard let type = try writer.schema().recordType(record.recordType) else {
            throw CloudStoreError.internalError("Record type \(record.recordType) of a stored record is not in the schema")
        }
        guard
            try access.decide(
                .write, on: type, creator: record.created.userRecordName, record: record.recordName, zone: record.zoneID.zoneName
            )
            .isAllowed
        else {
            throw CloudStoreError.accessDenied("WRITE operation not permitted")
        }
    }

    /// Refuses a `kind` operation on `record`, reached through shares, unless a share lets the
    /// caller write it. A record not shared with them is not there for them: an update or a
    /// delete finds nothing, and a forced save may not take its name. The root of a shared
    /// hierarchy is deleted by its owner only.
    private func requireSharedWrite(_ record: Record, _ kind: RecordOperation.Kind, in zone: StoredZone, access: TransactionAccess) throws {
        let given = try access.sharePermission(on: record, in: zone)
        func refused(_ reason: AccessDecision.Reason) {
            access.recordSharedRefusal(
                .write, reason, recordName: record.recordName, recordType: record.recordType, zone: zone, given: given)
        }
        if given == .none {
            refused(.notShared(.write))
            if kind.isForced, !kind.isDelete { throw Self.notSharedForWriting }
            throw CloudStoreError.notFound("Record not found")
        }
        guard given == .readWrite else {
            refused(.notShared(.write))
            throw Self.notSharedForWriting
        }
        if kind.isDelete, try access.shares(in: zone).contains(where: { $0.rootRecordName == record.recordName }) {
            refused(.shareRootDeletedByOwner)
            throw CloudStoreError.accessDenied("The root of a shared hierarchy is deleted by its owner only")
        }
    }

    /// `record` when the caller may read it; otherwise `nil`.
    private func readable(_ record: Record?, writer: any EnvironmentWriter, access: TransactionAccess) throws -> Record? {
        guard let record, try access.canRead(record, in: try writer.schema()) else { return nil }
        return record
    }

    private func save(
        _ operation: RecordOperation, named name: String, replacing existing: StoredRecord?, in zone: StoredZone,
        writer: any EnvironmentWriter, access: TransactionAccess, desiredKeys: [String]?
    ) throws -> RecordResult {
        let recordType: String
        if let existing {
            recordType = existing.record.recordType
            if let given = operation.recordType, given != recordType {
                throw CloudStoreError.badRequest("Record '\(name)' is of type '\(recordType)', not '\(given)'")
            }
        } else {
            guard let given = operation.recordType, !given.isEmpty else {
                throw CloudStoreError.badRequest("recordType is required to create record '\(name)'")
            }
            recordType = given
        }

        let schema = try writer.schema()
        let operationFields = try assetChecked(operation.fields, existing: existing?.record, writer: writer)
        let evolved = try evolution.evolve(recordType, for: operationFields, in: schema)
        if viaShare {
            // A record reached through shares may go, or move, only where a share lets the
            // caller write: under a parent in a read-write hierarchy, or in a read-write zone.
            if existing == nil || operation.parent != nil {
                let parent: String? = operation.parent ?? existing?.record.parent
                let permission = try access.shareScope(in: zone).permission(on: name, parent: parent, in: zone, reader: writer)
                guard permission == .readWrite else {
                    let asked: Permission = existing == nil ? .create : .write
                    access.recordSharedRefusal(
                        asked, .notShared(asked), recordName: name, recordType: recordType, zone: zone, given: permission)
                    throw CloudStoreError.accessDenied(
                        "\(existing == nil ? "CREATE" : "WRITE") operation not permitted: the record's parent must be in a hierarchy shared with the caller read-write"
                    )
                }
            }
        } else if existing == nil {
            // A type created just in time has CloudKit's default grants.
            guard let type = evolved ?? schema.recordType(recordType),
                try access.decide(.create, on: type, creator: nil, record: name, zone: zone.zoneID.zoneName).isAllowed
            else { throw CloudStoreError.accessDenied("CREATE operation not permitted") }
        }
        try checkReferences(in: operationFields, of: name, zone: zone, writer: writer, access: access)

        var fields: [String: FieldValue]
        if let existing, !operation.kind.replacesFields {
            fields = existing.record.fields.merging(operationFields) { _, new in new }
            for cleared in operation.clearedFields { fields[cleared] = nil }
        } else {
            fields = operationFields
        }
        let stamp = RecordStamp(
            timestamp: now, userRecordName: caller.userRecordName ?? Caller.operatorRecordName, deviceID: caller.deviceID)
        let parent: String? = operation.parent ?? existing?.record.parent
        let record = Record(
            recordName: name, recordType: recordType, zoneID: zone.zoneID, fields: fields, parent: parent,
            changeTag: ChangeTag.make(), created: existing?.record.created ?? stamp, modified: stamp)

        let size = RecordSize.of(record)
        guard size <= RecordSize.limit else {
            throw CloudStoreError.quotaExceeded(
                "Record '\(name)' is \(size) bytes; a record may hold at most 1 MB (\(RecordSize.limit) bytes)")
        }

        // Every check is done; from here on only writes. A create that also changes the schema
        // must learn whether its name is taken before the schema is written.
        if let evolved {
            if existing == nil, let current = try writer.record(named: name, in: zone) {
                throw try nameTaken(by: current.record, writer: writer, access: access)
            }
            try writer.saveRecordType(evolved)
        }
        let stored: StoredRecord
        if let existing {
            try writer.keepVersion(
                of: existing, in: zone, replacedBy: VersionReplacement(kind: .updated, time: now, modifier: stamp.userRecordName, via: via))
            stored = try writer.update(existing, to: record, in: zone)
        } else if let inserted = try writer.insert(record, in: zone) {
            stored = inserted
        } else {
            let current = try writer.record(named: name, in: zone)
            throw try nameTaken(by: current?.record, writer: writer, access: access)
        }
        try writer.appendChange(
            ChangeEntry(
                recordName: name, recordType: recordType, kind: existing == nil ? .created : .updated,
                creator: record.created.userRecordName, time: now, modifier: record.modified.userRecordName, via: via),
            in: zone)
        try notifier?.recordChanged(stored, existing == nil ? .create : .update, in: zone, reader: writer)
        // WRITE does not give READ: a caller who may change a record but not read it learns its
        // name and new change tag, and nothing a lookup would withhold. (A type this save created
        // is not in `schema`.)
        guard try access.canRead(record, of: evolved ?? schema.recordType(recordType)) else {
            return .withheld(recordName: name, changeTag: record.changeTag, zoneID: zone.zoneID)
        }
        return .record(record.keeping(desiredKeys))
    }

    /// The error for a create whose name `current` holds. Reached through shares, a record not
    /// shared with the caller is answered as any record outside their shares is, so that the
    /// answer does not tell them that the name is taken; elsewhere a conflict, with the server's
    /// record only when the caller may read it.
    private func nameTaken(by current: Record?, writer: any EnvironmentWriter, access: TransactionAccess) throws -> CloudStoreError {
        let server = try readable(current, writer: writer, access: access)
        if viaShare, server == nil { return Self.notSharedForWriting }
        return .conflict("record to insert already exists", serverRecord: server)
    }

    /// What a participant is told who tries to change a record no share lets them change.
    private static let notSharedForWriting = CloudStoreError.accessDenied(
        "WRITE operation not permitted: no share lets the caller change this record")

    /// The operation's fields with their assets checked against their receipts.
    private func assetChecked(_ fields: [String: FieldValue], existing: Record?, writer: any EnvironmentWriter) throws -> [String:
        FieldValue]
    {
        guard fields.values.contains(where: { !$0.assets.isEmpty }) else { return fields }
        guard let receipts else { throw CloudStoreError.badRequest("Assets cannot be saved here") }
        return try receipts.normalize(fields, existing: existing, reader: writer)
    }

    /// References stay within the record's zone, and a VALIDATE reference's target must exist
    /// for the caller: a record they may not read is answered as one that does not exist, so
    /// that they learn nothing of it and cannot pin it against its owner's delete.
    private func checkReferences(
        in fields: [String: FieldValue], of name: String, zone: StoredZone, writer: any EnvironmentWriter, access: TransactionAccess
    ) throws {
        // Most saves hold no reference: answered without sorting and looking up the names.
        guard fields.values.contains(where: { !$0.references.isEmpty }) else { return }
        for fieldName in fields.keys.sorted() {
            for reference in fields[fieldName]!.references {
                if let target = reference.zoneID, target != zone.zoneID {
                    throw CloudStoreError.badRequest(
                        "Field '\(fieldName)' references a record in zone '\(target.zoneName)'; references must stay within the record's zone '\(zone.zoneID.zoneName)'"
                    )
                }
                if reference.action == .validate, reference.recordName != name,
                    try readable(writer.record(named: reference.recordName, in: zone)?.record, writer: writer, access: access) == nil
                {
                    throw CloudStoreError.validatingReference(
                        "Field '\(fieldName)' of record '\(name)' references record '\(reference.recordName)', which does not exist")
                }
                if reference.action == .deleteSelf, reference.recordName != name {
                    let holders = try writer.referrers(to: reference.recordName, in: zone, action: .deleteSelf)
                    if holders.count >= Self.maximumDeleteSelfReferrers, !holders.contains(name) {
                        throw CloudStoreError.badRequest(
                            "Record '\(reference.recordName)' already has \(Self.maximumDeleteSelfReferrers) records referencing it with DELETE_SELF, the most CloudKit allows"
                        )
                    }
                }
            }
        }
    }

    // MARK: - Deleting

    private func delete(
        _ stored: StoredRecord, in zone: StoredZone, writer: any EnvironmentWriter, access: TransactionAccess
    ) throws -> RecordResult {
        // The caller's WRITE permission was checked; records that follow by DELETE_SELF go
        // with it whoever created them, as their references asked.
        try cascadeDelete(stored, in: zone, writer: writer, access: access)
        return .deleted(recordName: stored.record.recordName, zoneID: zone.zoneID)
    }

    /// Deletes a record and every record that references it with DELETE_SELF, transitively;
    /// refuses, before deleting anything, if a record outside that set references one of them
    /// with VALIDATE.
    private func cascadeDelete(
        _ stored: StoredRecord, in zone: StoredZone, writer: any EnvironmentWriter, access: TransactionAccess
    ) throws {
        var doomed = [stored]
        var names: Set<String> = [stored.record.recordName]
        var next = 0
        while next < doomed.count {
            for child in try writer.referrers(to: doomed[next].record.recordName, in: zone, action: .deleteSelf)
            where !names.contains(child) {
                if let record = try writer.record(named: child, in: zone) {
                    doomed.append(record)
                    names.insert(child)
                }
            }
            // The record itself plus at most 750 that go with it.
            guard doomed.count <= Self.maximumDeleteSelfReferrers + 1 else {
                throw CloudStoreError.badRequest(
                    "Deleting record '\(stored.record.recordName)' would delete more than \(Self.maximumDeleteSelfReferrers) records referencing it with DELETE_SELF; delete some of them first"
                )
            }
            next += 1
        }
        for victim in doomed {
            let name = victim.record.recordName
            if let holder = try writer.referrers(to: name, in: zone, action: .validate).first(where: { !names.contains($0) }) {
                // The holder is named only to a caller who may read it.
                let known = try readable(writer.record(named: holder, in: zone)?.record, writer: writer, access: access) != nil
                throw CloudStoreError.validatingReference(
                    "Record '\(name)' cannot be deleted: \(known ? "record '\(holder)'" : "another record") references it with VALIDATE")
            }
        }
        // Which shared hierarchy each record was in, found while they are all still stored: its
        // participants learn of the deletion. A shared root takes its share with it.
        let shares = try access.shares(in: zone)
        let roots = ShareScope.roots(of: shares)
        let trees = try doomed.map { victim in
            try ShareScope.root(of: victim.record.recordName, parent: victim.record.parent, roots: roots, in: zone, reader: writer)
        }
        for (victim, tree) in zip(doomed, trees) {
            // Asked while the record is still stored, so that a query subscription's filters see it.
            try notifier?.recordChanged(victim, .delete, in: zone, reader: writer)
            try writer.keepVersion(
                of: victim, in: zone,
                replacedBy: VersionReplacement(
                    kind: .deleted, time: now, modifier: caller.userRecordName ?? Caller.operatorRecordName, via: via))
            try writer.delete(victim, in: zone)
            try writer.appendChange(
                ChangeEntry(
                    recordName: victim.record.recordName, recordType: victim.record.recordType, kind: .deleted,
                    creator: victim.record.created.userRecordName, time: now, tree: tree,
                    modifier: caller.userRecordName ?? Caller.operatorRecordName, via: via),
                in: zone)
            if let share = shares.first(where: { $0.rootRecordName == victim.record.recordName }) {
                try writer.deleteShare(named: share.recordName, in: zone)
                access.sharesChanged(in: zone)
            }
        }
    }

    /// The most records that may reference one record with DELETE_SELF, and so the most one
    /// delete may take with it, as CloudKit limits them.
    static let maximumDeleteSelfReferrers = 750

    /// Record names: 1 to 255 bytes, no control characters.
    static func isValidRecordName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 255 && !name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }
}
