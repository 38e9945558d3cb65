/// A deployment of development's schema to production, as production's history keeps it.
public struct SchemaDeployment: Hashable, Sendable {
    /// The container.
    public var container: ContainerIdentifier
    /// When, in milliseconds since 1970.
    public var deployed: Int64
    /// Who: an operator, a management token, or the local command line.
    public var deployedBy: String
    /// The changes it made, one per line, as ``SchemaDifference/Change/description`` says them.
    public var changes: [String]
    /// Production's schema after it, in CloudKit's schema language.
    public var schema: String

    /// Creates a history entry.
    public init(container: ContainerIdentifier, deployed: Int64, deployedBy: String, changes: [String], schema: String) {
        self.container = container
        self.deployed = deployed
        self.deployedBy = deployedBy
        self.changes = changes
        self.schema = schema
    }
}

/// What resetting a container's development environment deletes.
public struct DevelopmentContents: Hashable, Sendable {
    /// Records in every database and zone.
    public var records: Int64
    /// Zones created in any database (default zones are not counted: they always exist).
    public var zones: Int
    /// Record types development has.
    public var recordTypes: Int
    /// Record types it will have after the reset: production's.
    public var productionRecordTypes: Int
    /// Users' sessions of development, which end: each must sign in again.
    public var sessions: Int

    /// Creates a summary.
    public init(records: Int64, zones: Int, recordTypes: Int, productionRecordTypes: Int, sessions: Int) {
        self.records = records
        self.zones = zones
        self.recordTypes = recordTypes
        self.productionRecordTypes = productionRecordTypes
        self.sessions = sessions
    }
}
