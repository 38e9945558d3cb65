/// The writer connection's memory of zones, of each zone's last change sequence and of each
/// database's subscriptions, kept across its transactions: every create looks up its zone, that
/// zone's last sequence and the subscriptions its change may fire, three statements the memory
/// answers instead.
///
/// It is good only while no other connection has written to the file and no zone was deleted or
/// changed. Each write transaction reads, in the statement that reads the schema version, `PRAGMA
/// data_version` (moved by every commit of another connection or process, never by this
/// connection's own) and the zones generation (moved by every delete or update of a zone, this
/// connection's included); when either moved since, the memory starts again empty. What a
/// transaction finds and changes waits in its session and comes here only once the transaction
/// has committed (see ``SQLiteTransactionMemory``), so that what a rolled-back write found or
/// made never outlives it.
final class SQLiteWriterMemo {
    /// What the memory's entries are good for.
    struct Validity: Equatable {
        var dataVersion: Int64
        var zonesGeneration: Int64
    }

    private var validity: Validity?
    /// Zones by database and name.
    private(set) var zones: [SQLiteZoneCache.Key: StoredZone] = [:]
    /// The last change sequence of each zone, by zone key.
    private(set) var lastSequences: [Int64: Int64] = [:]
    /// The subscriptions of each database, in the order they were made: every record a write
    /// changes is matched against them.
    private(set) var subscriptions: [DatabaseID: [(user: String, subscription: Subscription)]] = [:]

    /// Entries kept at most, of each kind; past it the memory starts again.
    static let capacity = 4_096

    /// Empties the memory unless it was kept at `current`, and keeps it at `current` from now on.
    func check(_ current: Validity) {
        guard validity != current else { return }
        forget()
        validity = current
    }

    /// Adds what a committed transaction found and changed.
    func keep(
        zones found: [SQLiteZoneCache.Key: StoredZone], lastSequences sequences: [Int64: Int64],
        subscriptions foundSubscriptions: [DatabaseID: [(user: String, subscription: Subscription)]]
    ) {
        if zones.count + found.count > Self.capacity || lastSequences.count + sequences.count > Self.capacity
            || subscriptions.count + foundSubscriptions.count > Self.capacity
        {
            zones.removeAll(keepingCapacity: true)
            lastSequences.removeAll(keepingCapacity: true)
            subscriptions.removeAll(keepingCapacity: true)
        }
        zones.merge(found) { $1 }
        lastSequences.merge(sequences) { $1 }
        subscriptions.merge(foundSubscriptions) { $1 }
    }

    /// Forgets every database's subscriptions: after a transaction that saved or deleted one.
    func forgetSubscriptions() { subscriptions.removeAll(keepingCapacity: true) }

    /// Empties the memory, and trusts nothing until the next ``check(_:)``: after a transaction
    /// that deleted or changed zones.
    func forget() {
        zones.removeAll(keepingCapacity: true)
        lastSequences.removeAll(keepingCapacity: true)
        subscriptions.removeAll(keepingCapacity: true)
        validity = nil
    }
}
