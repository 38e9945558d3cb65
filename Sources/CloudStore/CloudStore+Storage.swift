import Foundation

extension CloudStore {
    /// How much each environment of a container holds.
    public func usage(of container: ContainerIdentifier) throws -> [Environment: EnvironmentUsage] {
        var usage: [Environment: EnvironmentUsage] = [:]
        for environment in Environment.allCases {
            usage[environment] = try self.usage(of: container, environment)
        }
        return usage
    }

    /// How much one environment of a container holds.
    public func usage(of container: ContainerIdentifier, _ environment: Environment) throws -> EnvironmentUsage {
        let (zones, historyBytes) = try self.environment(container, environment).read { (try $0.zoneStats(), try $0.historyBytes()) }
        let fileBytes = backend.environmentFileBytes(container, environment)
        return EnvironmentUsage(
            records: zones.reduce(0) { $0 + $1.records }, recordBytes: zones.reduce(0) { $0 + $1.bytes }, fileBytes: fileBytes,
            historyBytes: historyBytes)
    }

    /// How many records of each type an environment holds, in every zone of every database.
    public func recordCounts(of container: ContainerIdentifier, _ environment: Environment) throws -> [String: Int64] {
        try self.environment(container, environment).read { try $0.recordCounts(in: nil) }
    }

    /// How much every zone of an environment that holds records holds, in every database.
    public func zoneUsage(_ container: ContainerIdentifier, _ environment: Environment) throws -> [ZoneUsage] {
        try self.environment(container, environment).read { reader in
            try reader.zoneStats().map {
                ZoneUsage(zoneID: $0.zone.zoneID, database: $0.zone.database, records: $0.records, recordBytes: $0.bytes)
            }
        }
    }
}

extension CloudDatabase {
    /// How many records of each type this database holds, in one zone or in all of them.
    /// Reached through shares, only the records the caller's shares give them are counted: the
    /// shared hierarchies, or the whole zone when it is shared.
    /// - Throws: ``CloudStoreError/zoneNotFound(_:)`` through shares, for a zone nothing of is
    ///   shared with the caller.
    public func recordCounts(zoneName: String? = nil) throws -> [String: Int64] {
        if viaShare {
            let names = try zoneName.map { [$0] } ?? zones().map(\.zoneID.zoneName)
            var total: [String: Int64] = [:]
            for name in names { total.merge(try usage(ofZone: name).counts, uniquingKeysWith: +) }
            return total
        }
        let database = database
        return try storage.read { reader in
            let zones: [StoredZone]
            if let zoneName {
                zones = try reader.zone(named: zoneName, in: database).map { [$0] } ?? []
            } else {
                zones = try reader.zones(in: database)
            }
            return try reader.recordCounts(in: zones)
        }
    }

    /// The records of each type and their bytes in the zone `zoneName`; reached through shares,
    /// only what the caller's shares give them.
    /// - Throws: ``CloudStoreError/zoneNotFound(_:)`` for a created zone that does not exist, or,
    ///   through shares, one nothing of is shared with the caller.
    public func usage(ofZone zoneName: String) throws -> (counts: [String: Int64], bytes: Int64) {
        try storage.read { reader in
            guard let (zone, roots) = try reachedZone(named: zoneName, reader) else { return ([:], 0) }
            if let roots { return try reader.recordStats(in: zone, withinTrees: roots) }
            let bytes = try reader.zoneStats().first { $0.zone.key == zone.key }?.bytes ?? 0
            return (try reader.recordCounts(in: [zone]), bytes)
        }
    }
}
