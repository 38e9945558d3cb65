extension CloudDatabase {
    /// The audit action of an operator's read of records in a private or shared database.
    public static let readAuditAction = "record.read"

    /// Writes an operator's read of `recordNames` in zone `zoneName` into the audit trail, when an
    /// operator reads (the console's records pages, the management API, act-as-user) and the
    /// database is a user's: private data read by an operator is kept on record. CloudKit's
    /// clients (no ``auditActor``) and the public database are not audited; nor is a read that
    /// found nothing. A read whose entry cannot be written fails, so that no private record is
    /// shown unrecorded.
    /// The names and the zone are worked out only for an audited read: CloudKit's clients read
    /// through here too, and a lookup or query of theirs makes no list for nothing.
    func auditRead(of recordNames: @autoclosure () -> [String], zoneName: @autoclosure () -> String, what: String = "") throws {
        guard let auditActor, database.scope != .public || viaShare else { return }
        let names = recordNames()
        guard !names.isEmpty else { return }
        try store.auditRead(
            by: auditActor, container, environment, target: "\(what)\(auditPlace) \(zoneName()): " + names.joined(separator: ", "))
    }
}

extension CloudStore {
    /// Writes an operator's read of private data (``CloudDatabase/readAuditAction``) into the
    /// audit trail: it changes nothing, so it has no transaction of its own to join.
    func auditRead(by actor: OperatorIdentity, _ container: ContainerIdentifier, _ environment: Environment, target: String) throws {
        let note = auditNote(
            actor, CloudDatabase.readAuditAction, container: container.rawValue, environment: environment.rawValue, target: target)
        try lifecycleStorage.insertAuditEntry(note.entry, forgetBefore: note.forgetBefore)
    }
}

extension CloudStore {
    /// Writes an operator's read of kept versions (the trash, a record's history) of records in
    /// users' databases into the audit trail: one entry per database and zone read.
    func auditReadOfVersions(
        _ versions: [RecordVersion], by actor: OperatorIdentity, _ container: ContainerIdentifier, _ environment: Environment, what: String
    ) throws {
        let users = versions.filter { $0.database.scope != .public }
        let places = Dictionary(grouping: users) { "\($0.database.scope) of \($0.database.owner) \($0.record.zoneID.zoneName)" }
        for (place, read) in places.sorted(by: { $0.key < $1.key }) {
            try auditRead(
                by: actor, container, environment, target: "\(what)\(place): " + read.map(\.record.recordName).joined(separator: ", "))
        }
    }
}
