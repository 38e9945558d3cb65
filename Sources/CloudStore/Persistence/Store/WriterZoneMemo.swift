/// The writer connection's memory of zones and of each zone's last change sequence, kept
/// across its transactions: every create looks up its zone and that zone's last sequence, two
/// statements the memory answers instead.
///
/// It is good only while no other connection has written to the file and no zone was deleted or
/// changed. Each write transaction reads, in the statement that reads the schema version, `PRAGMA
/// data_version` (moved by every commit of another connection or process, never by this
/// connection's own) and the zones generation (moved by every delete or update of a zone, this
/// connection's included); when either moved since, the memory starts again empty. What a
/// transaction finds and changes waits in its session and comes here only once the transaction
/// has committed (see ``SQLiteTransactionMemory``), so that what a rolled-back write found or
/// made never outlives it.
final class WriterZoneMemo {
    /// What the memory's entries are good for.
    struct Validity: Equatable {
        var dataVersion: Int64
        var zonesGeneration: Int64
    }

    private var validity: Validity?
    /// Zones by database and name.
    private(set) var zones: [ZoneCache.Key: StoredZone] = [:]
    /// The last change sequence of each zone, by zone key.
    private(set) var lastSequences: [Int64: Int64] = [:]

    /// Entries kept at most, of each kind; past it the memory starts again.
    static let capacity = 4_096

    /// Empties the memory unless it was kept at `current`, and keeps it at `current` from now on.
    func check(_ current: Validity) {
        guard validity != current else { return }
        forget()
        validity = current
    }

    /// Adds what a committed transaction found and changed.
    func keep(zones found: [ZoneCache.Key: StoredZone], lastSequences sequences: [Int64: Int64]) {
        if zones.count + found.count > Self.capacity || lastSequences.count + sequences.count > Self.capacity {
            zones.removeAll(keepingCapacity: true)
            lastSequences.removeAll(keepingCapacity: true)
        }
        zones.merge(found) { $1 }
        lastSequences.merge(sequences) { $1 }
    }

    /// Empties the memory, and trusts nothing until the next ``check(_:)``: after a transaction
    /// that deleted or changed zones.
    func forget() {
        zones.removeAll(keepingCapacity: true)
        lastSequences.removeAll(keepingCapacity: true)
        validity = nil
    }
}
