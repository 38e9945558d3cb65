import Synchronization

/// An audit entry on its way into the store with the change it records, and the time before
/// which older entries are forgotten when it is written.
struct AuditNote: Sendable {
    /// The entry.
    var entry: AuditEntry
    /// Entries older than this are forgotten as it is written (the retention).
    var forgetBefore: Int64
}

/// The audit entries that the next catalog write transaction of the calling thread must write
/// with its change (see ``CloudStore/auditedCatalogChange(_:_:container:environment:target:_:)``).
///
/// The catalog's storage changes each run their own transaction; rather than give every one an
/// audit parameter, the facade sets this around the one storage call that makes the change, and
/// each catalog store's `write` takes the entries and inserts them inside its transaction, before
/// it commits: the change and its entry commit together or not at all.
final class PendingAudit: Sendable {
    private let notes: Mutex<[AuditNote]>

    private init(_ notes: [AuditNote]) {
        self.notes = Mutex(notes)
    }

    /// The entries waiting for the calling thread's catalog write; `nil` outside an audited change.
    @TaskLocal private static var current: PendingAudit?

    /// Runs `change` with `note` waiting for its catalog write; whether a write took it.
    static func run<T>(_ note: AuditNote, _ change: () throws -> T) throws -> (result: T, written: Bool) {
        let pending = PendingAudit([note])
        let result = try $current.withValue(pending) { try change() }
        return (result, pending.notes.withLock { $0.isEmpty })
    }

    /// Takes the entries waiting for the calling thread's catalog write, so that exactly one
    /// write records them: called by a catalog store as it begins a write transaction.
    static func take() -> [AuditNote] {
        current?.notes.withLock { notes in
            defer { notes = [] }
            return notes
        } ?? []
    }

    /// The entries a write transaction whose body answered `result` writes: none when it
    /// answered `false`, as the catalog's storage does when what it was to change is not there
    /// (the change then fails, having changed nothing).
    static func notes(_ notes: [AuditNote], after result: Any) -> [AuditNote] {
        (result as? Bool) == false ? [] : notes
    }
}
