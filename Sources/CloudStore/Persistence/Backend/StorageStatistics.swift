/// What a backend counts of its own work, for metrics: the write-ahead logs of SQLite files, the
/// connections of a PostgreSQL pool. Each part is `nil` where the backend has no such thing.
struct StorageStatistics: Sendable, Equatable {
    /// A SQLite file's write-ahead log.
    struct Log: Sendable, Equatable {
        /// Pages in the log after the last commit.
        var pages = 0
        /// Checkpoints run so far, in the background or by the writer.
        var checkpoints = 0
    }

    /// A pool of connections to a database server.
    struct Pool: Sendable, Equatable {
        /// Connections open, idle or in use.
        var connections = 0
        /// Connections in use now.
        var inUse = 0
        /// Round trips to the server so far, by connections handed back to the pool.
        var roundTrips = 0
    }

    /// The write-ahead logs, summed over files.
    var log: Log?
    /// The connection pool.
    var pool: Pool?

    /// These statistics with `other`'s added.
    func adding(_ other: StorageStatistics) -> StorageStatistics {
        var sum = self
        if let log = other.log {
            sum.log = Log(pages: (sum.log?.pages ?? 0) + log.pages, checkpoints: (sum.log?.checkpoints ?? 0) + log.checkpoints)
        }
        if let pool = other.pool {
            sum.pool = Pool(
                connections: (sum.pool?.connections ?? 0) + pool.connections, inUse: (sum.pool?.inUse ?? 0) + pool.inUse,
                roundTrips: (sum.pool?.roundTrips ?? 0) + pool.roundTrips)
        }
        return sum
    }
}
