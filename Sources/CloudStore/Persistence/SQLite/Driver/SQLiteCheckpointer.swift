import CSQLite
import Dispatch
import Synchronization

/// Keeps a database's write-ahead log short by copying it back into the database file
/// (checkpointing) on a background thread, in place of SQLite's automatic checkpoints, which run
/// on the writer's thread inside the commit that crosses the threshold.
///
/// Why: a checkpoint writes every page the log holds and syncs the file twice; done by the
/// writer it took about a third of the writer's time under a steady load of batches, while
/// requests waited. A passive checkpoint runs beside the writer (SQLite lets one checkpointer and
/// one writer work at once), so the writer only appends to the log.
///
/// Should the background fall behind, the writer checkpoints itself once the log passes
/// ``writerThreshold`` pages, so the log stays bounded whatever the load.
final class SQLiteCheckpointer: Sendable {
    /// Log pages after a commit from which a background checkpoint starts (16 MB of 4 KiB pages).
    let backgroundThreshold: Int32
    /// Log pages from which the writer checkpoints in its own commit (80 MB of 4 KiB pages).
    let writerThreshold: Int32

    private let path: String
    private let synchronous: SynchronousMode
    /// The connection checkpoints run on, opened on first use and used on `queue` alone.
    private let connection = Mutex<SQLiteConnection?>(nil)
    /// Whether a background checkpoint is queued or running, so commits do not pile them up.
    private let scheduled = Atomic<Bool>(false)
    /// How many of the log's pages the last checkpoint left copied into the file.
    private let backfilled = Atomic<Int32>(0)
    /// The log's pages after the last commit, for metrics.
    private let logPages = Atomic<Int32>(0)
    /// Checkpoints run, in the background or by the writer, for metrics.
    private let checkpoints = Atomic<Int>(0)

    /// The log's size and the checkpoints run so far.
    var statistics: StorageStatistics.Log {
        StorageStatistics.Log(pages: Int(logPages.load(ordering: .relaxed)), checkpoints: checkpoints.load(ordering: .relaxed))
    }

    /// One thread for the checkpoints of every database of the process: checkpoints are rare
    /// and mostly wait for the disk, and a thread per file would multiply with containers.
    private static let queue = DispatchQueue(label: "cumulus-checkpoints", qos: .utility)

    /// A checkpointer for the database file at `path`; ``attach(to:)`` puts it to work. The
    /// thresholds count the log's pages after a commit (see the properties of the same names).
    init(path: String, synchronous: SynchronousMode, backgroundThreshold: Int32 = 4_000, writerThreshold: Int32 = 20_000) {
        self.path = path
        self.synchronous = synchronous
        self.backgroundThreshold = backgroundThreshold
        self.writerThreshold = writerThreshold
    }

    /// Makes `writer` report each commit's log size to this checkpointer instead of
    /// checkpointing automatically. The connection keeps the checkpointer alive.
    func attach(to writer: SQLiteConnection) {
        writer.walCommitObserver = self
        sqlite3_wal_hook(
            writer.handle,
            { context, database, schema, pages in
                guard let context else { return SQLITE_OK }
                let checkpointer = Unmanaged<SQLiteCheckpointer>.fromOpaque(context).takeUnretainedValue()
                checkpointer.committed(logPages: pages, database: database, schema: schema)
                return SQLITE_OK
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Called by SQLite on the writer's thread after each commit, with the log's size in pages.
    ///
    /// The log only starts again from its beginning when a write finds all of it copied back,
    /// which a background checkpoint rarely achieves while writes go on (it copies what the log
    /// held when it started), so the log's size alone would start a checkpoint after every
    /// commit: a new one starts when the pages not yet copied pass the threshold. Under a
    /// steady load the log grows to the writer's threshold, where the writer copies the rest
    /// (little, the background having copied most) and the log restarts.
    private func committed(logPages: Int32, database: OpaquePointer?, schema: UnsafePointer<CChar>?) {
        self.logPages.store(logPages, ordering: .relaxed)
        if logPages >= writerThreshold {
            // The same call SQLite's automatic checkpoint makes; a failure (another process
            // holding the checkpoint lock) leaves the log for a later commit to try again.
            var copied: Int32 = 0
            sqlite3_wal_checkpoint_v2(database, schema, SQLITE_CHECKPOINT_PASSIVE, nil, &copied)
            backfilled.store(max(copied, 0), ordering: .releasing)
            checkpoints.wrappingAdd(1, ordering: .relaxed)
            return
        }
        var copied = backfilled.load(ordering: .acquiring)
        if logPages < copied {
            // The log has started again from its beginning: nothing of it is copied yet.
            _ = backfilled.compareExchange(expected: copied, desired: 0, ordering: .acquiringAndReleasing)
            copied = 0
        }
        guard logPages - copied >= backgroundThreshold,
            scheduled.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        Self.queue.async { [self] in
            if let copied = checkpoint() {
                backfilled.store(copied, ordering: .releasing)
            }
            scheduled.store(false, ordering: .releasing)
        }
    }

    /// Copies as much of the log into the database as no reader still needs. Passive: it never
    /// waits for readers or the writer. Failures are left for the next commit to retry: a
    /// checkpoint that does not happen loses nothing, the log only grows until one does.
    /// - Returns: how many of the log's pages are now copied, or nil if it could not run.
    private func checkpoint() -> Int32? {
        connection.withLock { connection -> Int32? in
            if connection == nil {
                connection = try? SQLiteConnection(path: path, synchronous: synchronous)
            }
            guard let connection else { return nil }
            var copied: Int32 = 0
            let code = sqlite3_wal_checkpoint_v2(connection.handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, &copied)
            guard code == SQLITE_OK else { return nil }
            checkpoints.wrappingAdd(1, ordering: .relaxed)
            return copied
        }
    }
}
