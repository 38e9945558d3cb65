/// A named seed of a container's development environment: records of chosen types (or those a
/// query matches) of one database, kept in the catalog with the blobs of their assets and the
/// definitions of their types, so that a reset of development can bring them back.
public struct SeedSummary: Hashable, Sendable {
    /// The container.
    public var container: ContainerIdentifier
    /// The seed's name, unique in its container.
    public var name: String
    /// When it was saved, in milliseconds since 1970.
    public var created: Int64
    /// Who saved it.
    public var createdBy: String
    /// The database its records come from and go back to.
    public var database: DatabaseID
    /// What it holds, in words: `types Note, Person` or `query Person (2 filters)`.
    public var selection: String
    /// The record types it holds.
    public var recordTypes: [String]
    /// How many records it holds.
    public var records: Int
    /// How many asset blobs it holds.
    public var blobs: Int
    /// The bytes of those blobs.
    public var blobBytes: Int64

    /// A summary.
    public init(
        container: ContainerIdentifier, name: String, created: Int64, createdBy: String, database: DatabaseID, selection: String,
        recordTypes: [String], records: Int, blobs: Int, blobBytes: Int64
    ) {
        self.container = container
        self.name = name
        self.created = created
        self.createdBy = createdBy
        self.database = database
        self.selection = selection
        self.recordTypes = recordTypes
        self.records = records
        self.blobs = blobs
        self.blobBytes = blobBytes
    }
}

/// Which records of development a seed takes: every record of some types, or those a query
/// matches, in every zone of one database.
public struct SeedSelection: Hashable, Sendable {
    /// The database.
    public var database: DatabaseID
    /// The record types taken whole.
    public var recordTypes: [String]
    /// A query whose records are taken (its type, its filters; its sorts are ignored).
    public var query: Query?

    /// Every record of `recordTypes`.
    public static func types(_ recordTypes: [String], in database: DatabaseID = .public) -> SeedSelection {
        SeedSelection(database: database, recordTypes: recordTypes, query: nil)
    }

    /// The records `query` matches.
    public static func query(_ query: Query, in database: DatabaseID = .public) -> SeedSelection {
        SeedSelection(database: database, recordTypes: [], query: query)
    }

    /// The record types selected.
    var selectedTypes: [String] { query.map { [$0.recordType] } ?? recordTypes }

    /// The selection in words.
    var description: String {
        if let query {
            let count = query.filters.count
            return "query \(query.recordType)" + (count == 0 ? "" : " (\(count) filter\(count == 1 ? "" : "s"))")
        }
        return "types " + recordTypes.joined(separator: ", ")
    }
}

/// A record of a seed, with the zone it was in.
struct SeedRecord: Hashable, Sendable {
    var zoneName: String
    var record: Record
}

/// An asset blob a seed's records hold: its row and its bytes, as the asset store keeps them.
struct SeedBlob: Hashable, Sendable {
    var row: AssetBlob
    var bytes: [UInt8]
}

/// Everything a seed keeps.
struct SeedContent: Sendable {
    var summary: SeedSummary
    /// The definitions of its record types as development had them, in the schema language.
    var schema: String
    var records: [SeedRecord]
    var blobs: [SeedBlob]
}

/// What a reset of development did: what it deleted and, when it restored a seed, which and how
/// many records.
public struct DevelopmentReset: Hashable, Sendable {
    /// What was deleted.
    public var deleted: DevelopmentContents
    /// The seed restored; `nil` when development was left empty.
    public var seed: SeedSummary?
    /// How many of the seed's records were written back.
    public var restored: Int
}
