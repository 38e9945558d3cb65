/// Every operation an operator's action changes state through takes `by actor:` (who acts): the
/// store writes the action's ``AuditEntry`` in the transaction of the change it records, so every
/// door (console page, management API, command line) is audited alike, and a change whose entry
/// cannot be written is not made. Without an actor (`nil`: the store's own upkeep, clients'
/// requests, tests) nothing is audited.
extension CloudStore {
    // MARK: - Writing the audit trail with the change it records

    /// An audit entry by `actor`, stamped now, to be written with the change it records.
    func auditNote(_ actor: OperatorIdentity, _ action: String, container: String?, environment: String?, target: String) -> AuditNote {
        let time = now
        return AuditNote(
            entry: AuditEntry(
                time: time, actor: actor.description, operatorName: actor.operatorName, container: container, environment: environment,
                action: action, target: target, clientAddress: actor.clientAddress),
            forgetBefore: time - configuration.auditRetention)
    }

    /// An audit entry by `actor` about a container's environment; `nil` when no operator acts.
    func auditNote(
        _ actor: OperatorIdentity?, _ action: String, _ container: ContainerIdentifier, _ environment: Environment?, target: String
    ) -> AuditNote? {
        actor.map { auditNote($0, action, container: container.rawValue, environment: environment?.rawValue, target: target) }
    }

    /// Makes a change to the catalog, `change`, one call of the catalog's storage, and writes its
    /// audit entry by `actor` in the change's own transaction: if the entry cannot be written,
    /// the change is not made. Without an actor (the store's own upkeep, tests) nothing is audited.
    func auditedCatalogChange<T>(
        _ actor: OperatorIdentity?, _ action: String, container: String?, environment: String? = nil, target: @autoclosure () -> String,
        _ change: () throws -> T
    ) throws -> T {
        guard let actor else { return try change() }
        let note = auditNote(actor, action, container: container, environment: environment, target: target())
        let (result, written) = try PendingAudit.run(note, change)
        if !written {
            // The change found nothing to write: there is no transaction to join.
            try lifecycleStorage.insertAuditEntry(note.entry, forgetBefore: note.forgetBefore)
        }
        return result
    }

    /// Runs `body`, whose environment transactions write their audit entries into the
    /// environment (``EnvironmentWriter/record(_:)``), then moves what they left in the
    /// environment's outbox into the audit trail.
    func movingAuditOutbox<T>(of container: ContainerIdentifier, _ environment: Environment, _ body: () throws -> T) throws -> T {
        let result = try body()
        moveAuditOutbox(of: try self.environment(container, environment))
        return result
    }

    /// Moves the audit entries an environment's transactions left in its outbox into the audit
    /// trail: each is written once, however often this runs. A failure leaves them in the
    /// outbox for the next move (after the next audited change, when the environment is opened,
    /// or before the trail is read); the changes they record have committed either way.
    func moveAuditOutbox(of storage: any EnvironmentStorage) {
        do {
            let waiting = try storage.auditOutbox()
            guard !waiting.isEmpty else { return }
            try lifecycleStorage.insertAuditEntries(fromOutbox: waiting, forgetBefore: now - configuration.auditRetention)
            try storage.removeFromAuditOutbox(waiting.map(\.id))
        } catch {
            // Kept in the outbox: see above.
        }
    }

    /// Moves every open environment's audit outbox into the audit trail, so that the trail
    /// read next misses no change that has committed.
    func moveAuditOutboxes() {
        for storage in environments.read({ Array($0.values) }) { moveAuditOutbox(of: storage) }
    }
}

extension EnvironmentWriter {
    /// Writes `note`, when there is one, in this transaction: the change and its audit entry
    /// commit together or not at all.
    func record(_ note: AuditNote?) throws {
        guard let note else { return }
        try insertAuditEntry(note.entry, forgetBefore: note.forgetBefore)
    }
}
