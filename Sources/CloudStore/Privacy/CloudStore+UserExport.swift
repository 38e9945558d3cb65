import Foundation

/// Per-user export: everything a user of a container created or owns, in one tar archive an
/// operator hands over (the right of access): `user.json`, then for each environment JSON lines
/// per database and zone (`development/private/<zone>.jsonl` every record and share of their
/// private database, `…/public/<zone>.jsonl` the public records they created,
/// `…/shared/<owner>/<zone>.jsonl` the records they created in zones others shared with them,
/// `…/subscriptions.jsonl`), and the files of the assets those records hold (`assets/<sha>`).
extension CloudStore {
    /// Writes the export of `userRecordName` to the file at `path` (created or replaced) and
    /// writes its audit entry (`user.export`). Reading private data, it is refused to an operator
    /// who may not read users' private databases in each environment exported.
    /// - Parameter environments: the environments exported; both when empty.
    /// - Throws: ``CloudStoreError/notFound(_:)`` for an unknown user;
    ///   ``CloudStoreError/accessDenied(_:)`` for the wrong operator.
    public func exportUser(
        _ userRecordName: String, in container: ContainerIdentifier, environments: [Environment] = [], to path: String,
        encoder: some UserExportEncoder, by actor: OperatorIdentity
    ) throws -> UserExportSummary {
        let environments = environments.isEmpty ? Environment.allCases : environments
        try authorize(actor, .reads(.appUsers), on: OperatorTarget(container: container))
        for environment in environments {
            try authorize(actor, .reads(.data), on: OperatorTarget(container: container, environment: environment, database: .private))
        }
        guard let user = try user(userRecordName, in: container) else {
            throw CloudStoreError.notFound("User \(userRecordName) does not exist in \(container)")
        }
        guard FileManager.default.createFile(atPath: path, contents: nil), let output = FileHandle(forWritingAtPath: path) else {
            throw CloudStoreError.internalError("Cannot write the export to \(path)")
        }
        defer { try? output.close() }
        let archive = BackupArchiveWriter(output)
        var summary = UserExportSummary(userRecordName: userRecordName, name: user.name)
        try archive.add(data: Data(encoder.profile(user)), as: "user.json")
        var assets: [(sha: String, environment: Environment)] = []
        var seenAssets = Set<String>()
        for environment in environments {
            let storage = try self.environment(container, environment)
            let members = try storage.read { reader in
                try Self.userData(of: userRecordName, reader: reader, encoder: encoder)
            }
            for member in members {
                let name = "\(environment)/\(member.path)"
                try archive.add(data: Data(member.lines), as: name)
                summary.members[name] = member.count
                if member.path.hasSuffix("subscriptions.jsonl") {
                    summary.subscriptions += member.count
                } else {
                    summary.records += member.count
                }
                for sha in member.assets where seenAssets.insert(sha).inserted { assets.append((sha, environment)) }
            }
        }
        for (sha, environment) in assets {
            guard let bytes = try? assetStore.read(sha, in: EnvironmentKey(container: container, environment: environment)) else {
                continue
            }
            try archive.add(data: Data(bytes), as: "assets/\(sha)")
            summary.members["assets/\(sha)"] = bytes.count
            summary.assets += 1
        }
        try archive.finish()
        try auditedCatalogChange(
            actor, "user.export", container: container.rawValue,
            target: "\(user.auditLabel): \(summary.records) records, \(summary.assets) assets, \(summary.subscriptions) subscriptions in "
                + environments.map(\.rawValue).joined(separator: " and ")
        ) {}
        return summary
    }

    /// One member of a user's export: its path in the environment, its JSON lines, how many, and
    /// the asset blobs its records hold.
    struct UserDataMember {
        var path: String
        var lines: [UInt8] = []
        var count = 0
        var assets: [String] = []

        mutating func add(_ line: [UInt8]) {
            lines += line
            lines.append(UInt8(ascii: "\n"))
            count += 1
        }

        mutating func add(_ record: Record, _ encoder: some UserExportEncoder) {
            add(encoder.line(record))
            assets += HistoryAssetRows.hashes(of: record.fields)
        }
    }

    /// What of one environment belongs to `user`, read in one snapshot, one member per database
    /// and zone that holds any of it.
    static func userData(of user: String, reader: any EnvironmentReader, encoder: some UserExportEncoder) throws -> [UserDataMember] {
        var members: [UserDataMember] = []
        for zone in try UserData.privateZones(of: user, reader) {
            var member = UserDataMember(path: "private/\(zone.zoneID.zoneName).jsonl")
            try eachRecord(in: zone, ofType: nil, reader: reader) { member.add($0.record, encoder) }
            for share in try reader.shares(in: zone) { member.add(Record(share), encoder) }
            if member.count > 0 { members.append(member) }
        }
        for (zone, place) in try UserData.zonesCreatedIn(by: user, reader) {
            var member = UserDataMember(path: "\(place)/\(zone.zoneID.zoneName).jsonl")
            try eachRecord(in: zone, ofType: nil, reader: reader) { stored in
                if stored.record.created.userRecordName == user { member.add(stored.record, encoder) }
            }
            if member.count > 0 { members.append(member) }
        }
        var subscriptions = UserDataMember(path: "subscriptions.jsonl")
        for (database, subscriber, subscription) in try reader.allSubscriptions() where subscriber == user {
            subscriptions.add(encoder.line(subscription, in: database))
        }
        if subscriptions.count > 0 { members.append(subscriptions) }
        return members
    }
}

/// Where a user's data lies in one environment, read alike by the export and the erasure.
enum UserData {
    /// The zones of the user's private database, the default zone among them once it holds anything.
    static func privateZones(of user: String, _ reader: any EnvironmentReader) throws -> [StoredZone] {
        var zones = try reader.zones(in: .private(user))
        if !zones.contains(where: { $0.zoneID.zoneName == ZoneID.defaultZoneName }),
            let defaultZone = try reader.zone(named: ZoneID.defaultZoneName, in: .private(user))
        {
            zones.insert(defaultZone, at: 0)
        }
        return zones
    }

    /// The zones outside the user's private database that may hold records the user created:
    /// the public database's, and those of the shares the user is or was a participant of,
    /// each with where the export files it (`public`, `shared/<owner>`).
    static func zonesCreatedIn(by user: String, _ reader: any EnvironmentReader) throws -> [(zone: StoredZone, place: String)] {
        var zones = try reader.zones(in: .public).map { ($0, "public") }
        if !zones.contains(where: { $0.0.zoneID.zoneName == ZoneID.defaultZoneName }),
            let defaultZone = try reader.zone(named: ZoneID.defaultZoneName, in: .public)
        {
            zones.insert((defaultZone, "public"), at: 0)
        }
        var seen = Set<ZoneID>()
        for share in try reader.allShares()
        where share.owner != user && share.participants.contains(where: { $0.userRecordName == user }) && seen.insert(share.zoneID).inserted
        {
            if let zone = try reader.zone(named: share.zoneID.zoneName, in: .private(share.owner)) {
                zones.append((zone, "shared/\(share.owner)"))
            }
        }
        return zones
    }
}
