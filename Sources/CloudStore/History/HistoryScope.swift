/// Where in an environment a history operation looks: a database, a zone of it, records of a
/// type; each left out (`nil`) means every one.
public struct HistoryScope: Hashable, Sendable {
    /// The database; `nil` for every database of the environment.
    public var database: DatabaseID?
    /// The zone's name; `nil` for every zone.
    public var zoneName: String?
    /// The record type; `nil` for every type.
    public var recordType: String?

    /// A scope.
    public init(database: DatabaseID? = nil, zoneName: String? = nil, recordType: String? = nil) {
        self.database = database
        self.zoneName = zoneName
        self.recordType = recordType
    }

    /// The filter of kept versions in this scope.
    var filter: VersionFilter { VersionFilter(database: database, zoneName: zoneName, recordType: recordType) }

    /// Whether `zone` of `database` is in the scope.
    func contains(zone: String, of database: DatabaseID) -> Bool {
        (self.database == nil || self.database == database) && (zoneName == nil || zoneName == zone)
    }

    /// The database a restore of a zone or a type (`what`: "A restore point") acts on.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` without a database, or without a zone or a type.
    func restoredDatabase(_ what: String) throws -> DatabaseID {
        guard let database else { throw CloudStoreError.badRequest("\(what) names a database") }
        guard zoneName != nil || recordType != nil else { throw CloudStoreError.badRequest("\(what) names a zone or a record type") }
        return database
    }
}
