extension CloudDatabase {
    /// How this handle's changes join the audit trail; `nil` when no operator makes them.
    func recordAudit(_ request: ModifyRequest?) -> DatabaseAudit? {
        guard let auditActor else { return nil }
        return DatabaseAudit(
            store: store, actor: auditActor, container: container.rawValue, environment: environment.rawValue, place: auditPlace,
            summary: auditSummary)
    }
}

/// The audit entries of an operator's change to a database, made in the change's transaction.
struct DatabaseAudit: Sendable {
    let store: CloudStore
    let actor: OperatorIdentity
    let container: String
    let environment: String
    /// How the request named the database: `private of alice`.
    let place: String
    /// The one entry standing for the whole change, if any.
    let summary: (action: String, target: String)?

    /// The entries of a records change: the summary, or one per record changed (`record.create`,
    /// `record.update`, `record.delete` on `place zone/record`); refused operations changed nothing.
    func notes(_ request: ModifyRequest, _ results: [RecordResult]) -> [AuditNote] {
        let changed = zip(request.operations, results).compactMap { operation, result -> (RecordOperation, String)? in
            switch result {
            case .record(let record): (operation, record.recordName)
            case .withheld(let name, _, _), .deleted(let name, _): (operation, name)
            case .failure: nil
            }
        }
        if let summary {
            return changed.isEmpty ? [] : [note(summary.action, target: summary.target)]
        }
        return changed.map { operation, name in
            let action =
                switch operation.kind {
                case .create: "record.create"
                case .delete, .forceDelete: "record.delete"
                default: "record.update"
                }
            return note(action, target: "\(place) \(request.zoneName)/\(name)")
        }
    }

    /// The entries of a zones change: `zone.create` or `zone.delete` on `place/zone` for each
    /// zone changed.
    func notes(_ results: [ZoneResult]) -> [AuditNote] {
        results.compactMap { result in
            switch result {
            case .zone(let zone): note("zone.create", target: "\(place)/\(zone.zoneID.zoneName)")
            case .deleted(let zoneID): note("zone.delete", target: "\(place)/\(zoneID.zoneName)")
            case .failure: nil
            }
        }
    }

    private func note(_ action: String, target: String) -> AuditNote {
        store.auditNote(actor, action, container: container, environment: environment, target: target)
    }
}
