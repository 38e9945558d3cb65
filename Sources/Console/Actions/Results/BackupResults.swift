import CloudKitWire
import CloudStore
import Foundation

/// One backup in the server's backup location.
public struct BackupView: ManagementResult, Equatable {
    /// Its name in the location.
    public var name: String
    /// When it was taken, in milliseconds since 1970.
    public var created: Int64
    /// Its size in bytes.
    public var bytes: Int64
    /// Whether its manifest lists exactly what it holds; `nil` when not checked.
    public var manifestOK: Bool?

    init(_ backup: StoredBackup) {
        name = backup.name
        created = Int64((backup.created.timeIntervalSince1970 * 1000).rounded())
        bytes = backup.bytes
        manifestOK = backup.manifestOK
    }

    public var json: JSONValue {
        [
            "name": .string(name), "created": .integer(created), "bytes": .integer(bytes),
            "manifestOK": manifestOK.map(JSONValue.bool) ?? .null,
        ]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        name = try fields.string("name")
        created = try fields.int64("created")
        bytes = try fields.int64("bytes")
        manifestOK = (try? fields.value("manifestOK"))?.boolValue
    }
}

/// The server's backups, newest first, with where they are kept and how often they are taken.
public struct BackupsView: ManagementResult, Equatable {
    /// The location, as written in `--backup-to`.
    public var location: String
    /// Seconds between two scheduled backups; `nil`: only when asked.
    public var intervalSeconds: Int64?
    /// How many are kept.
    public var keep: Int64
    /// The backups.
    public var backups: [BackupView]

    init(_ schedule: BackupSchedule, _ backups: [StoredBackup]) {
        location = schedule.location.description
        intervalSeconds = schedule.interval.map { $0.components.seconds }
        keep = Int64(schedule.keep)
        self.backups = backups.map(BackupView.init)
    }

    public var json: JSONValue {
        [
            "location": .string(location), "intervalSeconds": intervalSeconds.map(JSONValue.integer) ?? .null, "keep": .integer(keep),
            "backups": .array(backups.map(\.json)),
        ]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        location = try fields.string("location")
        intervalSeconds = try fields.optionalInt64("intervalSeconds")
        keep = try fields.int64("keep")
        backups = try fields.array("backups", BackupView.init(json:))
    }
}

/// A backup deleted.
public struct BackupDeletion: ManagementResult, Equatable {
    /// Its name.
    public var name: String

    init(name: String) { self.name = name }

    public var json: JSONValue { ["name": .string(name), "deleted": .bool(true)] }

    public init(json: JSONValue) throws { name = try AnswerFields(json).string("name") }
}
