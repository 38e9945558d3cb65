/// Zones found by read transactions, by database and name, kept while no zone is deleted or
/// changed anywhere in the file.
///
/// What is kept of a zone (its key, name and creation time) never changes until the zone is
/// deleted, and every request looks its zone up, so a read transaction takes it from here
/// instead of running a statement. Triggers on `zones` move the file's zones generation on
/// every delete and update (forgetting tombstones moves a zone's horizon now and then), by any
/// connection or process, and each read transaction reads that generation in its own snapshot
/// (with the schema version, in one statement): an entry is used only by a transaction that
/// sees the generation it was found at. A zone created after a transaction's snapshot began may
/// be found by it; that transaction then sees the zone empty, as it was just after its
/// creation. Only read transactions use the cache: a write may be rolled back with its group,
/// and what it found or made must not outlive it (the writer keeps its own, told of each commit:
/// ``SQLiteWriterMemo``).
final class SQLiteZoneCache: Sendable {
    /// A zone's identity within the file.
    struct Key: Hashable, Sendable {
        var scope: Int64
        var owner: String
        var name: String
    }

    private struct State {
        var generation: Int64 = -1
        var zones: [Key: StoredZone] = [:]
    }

    /// Entries kept at most; past it the cache starts again (zones are few next to requests).
    static let capacity = 4_096

    private let state = ReadWriteLock(State())

    /// The zone found at `generation`, if one was.
    func zone(_ key: Key, generation: Int64) -> StoredZone? {
        state.read { $0.generation == generation ? $0.zones[key] : nil }
    }

    /// Keeps a zone a read transaction found at `generation`. A newer generation empties the
    /// cache; an older one (a transaction that began before a delete) is not kept.
    func remember(_ zone: StoredZone, _ key: Key, generation: Int64) {
        state.write { state in
            if state.generation != generation {
                guard generation > state.generation else { return }
                state = State(generation: generation)
            }
            if state.zones.count >= Self.capacity { state.zones.removeAll(keepingCapacity: true) }
            state.zones[key] = zone
        }
    }
}
