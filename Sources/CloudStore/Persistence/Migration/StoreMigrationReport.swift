/// What `migrate-store` copied and how each table compared once read back.
public struct StoreMigrationReport: Sendable {
    /// One table of one part of the store (the catalog, an environment, the request log).
    public struct Table: Sendable, Hashable {
        /// `catalog`, `request log`, or a container's environment (`iCloud.com.example.Notes development`).
        public var scope: String
        /// The table's name on PostgreSQL.
        public var name: String
        /// Rows read from SQLite.
        public var sourceRows: Int
        /// Rows read back from PostgreSQL.
        public var targetRows: Int
        /// The checksum of the rows read from SQLite.
        public var sourceChecksum: String
        /// The checksum of the rows read back from PostgreSQL, in the same order.
        public var targetChecksum: String

        /// Whether both sides hold the same rows.
        public var matches: Bool { sourceRows == targetRows && sourceChecksum == targetChecksum }
    }

    /// Every table copied, in the order copied.
    public var tables: [Table]
    /// Seconds the copy took, from the first read to the commit.
    public var seconds: Double

    /// The parts of the store, in the order copied.
    public var scopes: [String] {
        var seen: Set<String> = []
        return tables.map(\.scope).filter { seen.insert($0).inserted }
    }

    /// Rows copied in every table.
    public var rows: Int { tables.reduce(0) { $0 + $1.sourceRows } }

    /// The tables whose two sides differ; empty when the copy is whole.
    public var mismatches: [Table] { tables.filter { !$0.matches } }

    /// How many rows `scope`'s table `name` had; 0 when it was not copied.
    public func rows(_ scope: String, _ name: String) -> Int {
        tables.first { $0.scope == scope && $0.name == name }?.sourceRows ?? 0
    }
}
