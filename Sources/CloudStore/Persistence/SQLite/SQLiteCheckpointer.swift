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
    /// Log pages from which the writer checkpoints in its own commit (160 MB of 4 KiB pages).
    let writerThreshold: Int32

    private let path: String
    private let synchronous: SynchronousMode
    /// The connection checkpoints run on, opened on first use and used on `queue` alone.
    private let connection = Mutex<SQLiteConnection?>(nil)
    /// Whether a background checkpoint is queued or running, so commits do not pile them up.
    private let scheduled = Atomic<Bool>(false)

    /// One thread for the checkpoints of every database of the process: checkpoints are rare
    /// and mostly wait for the disk, and a thread per file would multiply with containers.
    private static let queue = DispatchQueue(label: "cumulus-checkpoints", qos: .utility)

    /// A checkpointer for the database file at `path`; ``attach(to:)`` puts it to work. The
    /// thresholds count the log's pages after a commit (see the properties of the same names).
    init(path: String, synchronous: SynchronousMode, backgroundThreshold: Int32 = 4_000, writerThreshold: Int32 = 40_000) {
        self.path = path
        self.synchronous = synchronous
        self.backgroundThreshold = backgroundThreshold
        self.writerThreshold = writerThreshold
    }

    /// Makes `writer` report each commit's log size to this checkpointer instead of
    /// checkpointing automatically. The connection keeps the checkpointer alive.
    func attach(to writer: SQLiteConnection) {
        writer.walCommitObserver = self
        sqlite3_wal_hook(writer.handle, { context, database, schema, pages in
            guard let context else { return SQLITE_OK }
            let checkpointer = Unmanaged<SQLiteCheckpointer>.fromOpaque(context).takeUnretainedValue()
            checkpointer.committed(logPages: pages, database: database, schema: schema)
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Called by SQLite on the writer's thread after each commit, with the log's size in pages.
    private func committed(logPages: Int32, database: OpaquePointer?, schema: UnsafePointer<CChar>?) {
        if logPages >= writerThreshold {
            // The same call SQLite's automatic checkpoint makes; a failure (another process
            // holding the checkpoint lock) leaves the log for the next commit to try again.
            sqlite3_wal_checkpoint_v2(database, schema, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        } else if logPages >= backgroundThreshold,
                  scheduled.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged {
            Self.queue.async { [self] in
                checkpoint()
                scheduled.store(false, ordering: .releasing)
            }
        }
    }

    /// Copies as much of the log into the database as no reader still needs. Passive: it never
    /// waits for readers or the writer. Failures are left for the next commit to retry: a
    /// checkpoint that does not happen loses nothing, the log only grows until one does.
    private func checkpoint() {
        connection.withLock { connection in
            if connection == nil {
                connection = try? SQLiteConnection(path: path, synchronous: synchronous)
            }
            guard let connection else { return }
            sqlite3_wal_checkpoint_v2(connection.handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        }
    }
}
