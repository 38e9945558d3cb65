import CloudStore
import Foundation

extension ManagementActions {
    /// The trash of a database: its deleted records (at their last version) and zones, in a
    /// zone or of a type when given, a page at a time.
    /// - Parameter after: where the page starts: the `next` of the page before; `nil` for the first.
    public func trash(
        in container: ContainerIdentifier, environment: Environment, database: DatabaseScope, user: String?, zone: String?,
        type: String?, limit: Int = 1000, after: String? = nil, as actor: OperatorIdentity
    ) throws -> TrashView {
        let (identifier, environment, target) = try databaseID(container, environment, database, user)
        let start = try after.flatMap { text -> Int64? in
            if text.isEmpty { return nil }
            guard let value = Int64(text), value > 0 else {
                throw CloudStoreError.badRequest("after is where a page of the trash starts: the `next` of the page before")
            }
            return value
        }
        return TrashView(
            try store.trash(
                identifier, environment, in: HistoryScope(database: target, zoneName: zone, recordType: type),
                limit: min(max(limit, 1), 10_000), after: start, by: actor))
    }

    /// Restores deleted records of a database from its trash (and their zones, when deleted):
    /// those named, or those deleted at or after `since`, or all in the scope.
    /// - Parameter since: milliseconds since 1970 or ISO 8601.
    public func restoreFromTrash(
        in container: ContainerIdentifier, environment: Environment, database: DatabaseScope, user: String?, zone: String?,
        type: String?, records: [String]?, since: String?, as actor: OperatorIdentity
    ) throws -> RestoreView {
        let (identifier, environment, target) = try databaseID(container, environment, database, user)
        return RestoreView(
            try store.restoreFromTrash(
                identifier, environment, in: HistoryScope(database: target, zoneName: zone, recordType: type),
                recordNames: records.flatMap { $0.isEmpty ? nil : $0 }, since: try since.map { try Self.historyTime($0, "since") },
                by: actor))
    }

    /// A record's kept versions, newest first, with who changed what.
    public func recordHistory(
        _ recordName: String, zone: String?, in container: ContainerIdentifier, environment: Environment, database: DatabaseScope,
        user: String?, as actor: OperatorIdentity
    ) throws -> RecordHistoryView {
        let (identifier, environment, target) = try databaseID(container, environment, database, user)
        return RecordHistoryView(
            try store.history(
                ofRecord: recordName, zoneName: zone ?? ZoneID.defaultZoneName, in: target, identifier, environment, by: actor))
    }

    /// Writes a kept version of a record back as a conflict-checked save: refused when the
    /// record's change tag is no longer `changeTag` (when given).
    public func revertRecord(
        _ recordName: String, zone: String?, toVersion version: Int64, changeTag: String?, in container: ContainerIdentifier,
        environment: Environment, database: DatabaseScope, user: String?, as actor: OperatorIdentity
    ) throws -> RevertView {
        let (identifier, environment, target) = try databaseID(container, environment, database, user)
        return RevertView(
            try store.revert(
                recordName: recordName, zoneName: zone ?? ZoneID.defaultZoneName, in: target, toVersion: version, changeTag: changeTag,
                identifier, environment, by: actor))
    }

    /// Brings a zone, or a record type, of a database back to its state at `at`; with `dryRun`
    /// only says what it would change.
    /// - Parameter at: milliseconds since 1970 or ISO 8601.
    public func restorePoint(
        in container: ContainerIdentifier, environment: Environment, database: DatabaseScope, user: String?, zone: String?,
        type: String?, at: String, dryRun: Bool, as actor: OperatorIdentity
    ) throws -> RestoreView {
        let (identifier, environment, target) = try databaseID(container, environment, database, user)
        return RestoreView(
            try store.restorePoint(
                identifier, environment, in: HistoryScope(database: target, zoneName: zone, recordType: type),
                at: try Self.historyTime(at, "at"), dryRun: dryRun, by: actor))
    }

    /// How long an environment keeps replaced versions and its trash, and their bytes.
    public func historyRetention(in container: ContainerIdentifier, environment: Environment, as actor: OperatorIdentity) throws
        -> HistoryRetentionView
    {
        let identifier = try existingContainer(container)
        let (retention, isDefault) = try store.historyRetention(identifier, environment)
        return HistoryRetentionView(
            milliseconds: retention, isDefault: isDefault, historyBytes: try store.usage(of: identifier, environment).historyBytes)
    }

    /// Sets how long an environment keeps replaced versions and its trash, in seconds; `nil`
    /// returns it to the server's default.
    public func setHistoryRetention(
        seconds: Int64?, in container: ContainerIdentifier, environment: Environment, as actor: OperatorIdentity
    ) throws -> HistoryRetentionView {
        let identifier = try existingContainer(container)
        try store.setHistoryRetention(seconds.map { $0 * 1000 }, identifier, environment, by: actor)
        return try historyRetention(in: identifier, environment: environment, as: actor)
    }

    /// A time given to a history action: milliseconds since 1970, or ISO 8601 (UTC unless it
    /// says otherwise).
    static func historyTime(_ text: String, _ name: String) throws -> Int64 {
        guard let time = Formatting.parseTime(text, in: TimeZone(identifier: "UTC") ?? .current) else {
            throw CloudStoreError.badRequest("'\(name)' is a time: milliseconds since 1970 or ISO 8601 (2026-11-24T14:05:00Z)")
        }
        return time
    }
}
