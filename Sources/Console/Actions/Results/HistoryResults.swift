import CloudKitWire
import CloudStore

/// One kept version of a record, as the trash and a record's history list it.
public struct RecordVersionView: Sendable, Equatable {
    /// The version's identifier (what `history revert --version` names).
    public var version: Int64
    /// The zone the record is (or was) in.
    public var zoneName: String
    /// The record's name.
    public var recordName: String
    /// Its type.
    public var recordType: String
    /// What replaced it: `updated`, `deleted` or `zoneDeleted`.
    public var replacement: String
    /// When, in milliseconds since 1970.
    public var time: Int64
    /// The user the replacing change was made as.
    public var modifier: String?
    /// The API token or server key of the replacing change's request.
    public var via: String?
    /// The fields the replacing change changed (in a record's history; `nil` in the trash).
    public var changedFields: [String]?
    /// The version as CloudKit's records carry it: name, type, fields, parent, change tag, stamps.
    public var record: JSONValue

    init(_ version: RecordVersion, changedFields: [String]? = nil) {
        self.version = version.id
        zoneName = version.record.zoneID.zoneName
        recordName = version.record.recordName
        recordType = version.record.recordType
        replacement = version.replacement.name
        time = version.time
        modifier = version.modifier
        via = version.via
        self.changedFields = changedFields
        record = RecordEncoder(numbersAsStrings: false).json(version.record)
    }

    var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("version", .integer(version)), ("zoneName", .string(zoneName)), ("recordName", .string(recordName)),
            ("recordType", .string(recordType)), ("replacement", .string(replacement)), ("time", .integer(time)),
            ("modifier", modifier.map(JSONValue.string) ?? .null), ("via", via.map(JSONValue.string) ?? .null),
        ]
        if let changedFields { members.append(("changedFields", .array(changedFields.map(JSONValue.string)))) }
        members.append(("record", record))
        return .object(JSONObject(members))
    }

    init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        version = try fields.int64("version")
        zoneName = try fields.string("zoneName")
        recordName = try fields.string("recordName")
        recordType = try fields.string("recordType")
        replacement = try fields.string("replacement")
        time = try fields.int64("time")
        modifier = try fields.optionalString("modifier")
        via = try fields.optionalString("via")
        changedFields = json["changedFields"] == nil ? nil : try fields.strings("changedFields")
        record = try fields.value("record")
    }
}

/// A database's trash: deleted records at their last version, and deleted zones.
public struct TrashView: ManagementResult, Equatable {
    /// A deleted zone.
    public struct Zone: Sendable, Equatable {
        /// Its name.
        public var zoneName: String
        /// When it was deleted.
        public var deleted: Int64
        /// Who deleted it.
        public var modifier: String?
        /// How many records it took to the trash.
        public var records: Int
    }

    /// The deleted records, most recently deleted first.
    public var records: [RecordVersionView]
    /// The deleted zones, most recently deleted first; on the first page only.
    public var zones: [Zone]
    /// Where the next page starts (its `after`); `nil` on the last page.
    public var next: String?

    init(_ trash: Trash) {
        records = trash.records.map { RecordVersionView($0) }
        zones = trash.zones.map { Zone(zoneName: $0.zoneName, deleted: $0.deleted, modifier: $0.modifier, records: $0.records) }
        next = trash.next.map(String.init)
    }

    public var json: JSONValue {
        [
            "records": .array(records.map(\.json)),
            "zones": .array(
                zones.map {
                    [
                        "zoneName": .string($0.zoneName), "deleted": .integer($0.deleted),
                        "modifier": $0.modifier.map(JSONValue.string) ?? .null,
                        "records": .integer(Int64($0.records)),
                    ]
                }),
            "next": next.map(JSONValue.string) ?? .null,
        ]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        next = try fields.optionalString("next")
        records = try fields.array("records") { try RecordVersionView(json: $0) }
        zones = try fields.array("zones") { value in
            let zone = try AnswerFields(value)
            return Zone(
                zoneName: try zone.string("zoneName"), deleted: try zone.int64("deleted"), modifier: try zone.optionalString("modifier"),
                records: Int(try zone.int64("records")))
        }
    }
}

/// A record's kept versions, newest first, each with the fields the change that replaced it
/// changed, and the record as it is now.
public struct RecordHistoryView: ManagementResult, Equatable {
    /// The record's name.
    public var recordName: String
    /// Its zone.
    public var zoneName: String
    /// The record as it is now (as CloudKit's records carry it); `nil` when deleted.
    public var current: JSONValue?
    /// The kept versions, newest first.
    public var versions: [RecordVersionView]

    init(_ history: RecordHistory) {
        recordName = history.recordName
        zoneName = history.zoneID.zoneName
        current = history.current.map { RecordEncoder(numbersAsStrings: false).json($0) }
        versions = history.entries.map {
            RecordVersionView($0.version, changedFields: $0.changedFields + ($0.parentChanged ? ["(parent)"] : []))
        }
    }

    public var json: JSONValue {
        [
            "recordName": .string(recordName), "zoneName": .string(zoneName), "current": current ?? .null,
            "versions": .array(versions.map(\.json)),
        ]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        recordName = try fields.string("recordName")
        zoneName = try fields.string("zoneName")
        current = json["current"].flatMap { $0.isNull ? nil : $0 }
        versions = try fields.array("versions") { try RecordVersionView(json: $0) }
    }
}

/// What a restore (from the trash, or to a point in time) did, or would do in a dry run.
public struct RestoreView: ManagementResult, Equatable {
    /// Deleted records written back.
    public var restored: Int
    /// Records given back an older version.
    public var reverted: Int
    /// Records created since that were deleted.
    public var removed: Int
    /// Zones created again.
    public var zonesRestored: [String]
    /// Some of the records changed, as `zone/record`.
    public var sample: [String]
    /// Whether nothing was written.
    public var dryRun: Bool

    init(_ outcome: RestoreOutcome) {
        restored = outcome.restored
        reverted = outcome.reverted
        removed = outcome.removed
        zonesRestored = outcome.zonesRestored
        sample = outcome.sample
        dryRun = outcome.dryRun
    }

    public var json: JSONValue {
        [
            "restored": .integer(Int64(restored)), "reverted": .integer(Int64(reverted)), "removed": .integer(Int64(removed)),
            "zonesRestored": .array(zonesRestored.map(JSONValue.string)), "sample": .array(sample.map(JSONValue.string)),
            "dryRun": .bool(dryRun),
        ]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        restored = Int(try fields.int64("restored"))
        reverted = Int(try fields.int64("reverted"))
        removed = Int(try fields.int64("removed"))
        zonesRestored = try fields.strings("zonesRestored")
        sample = try fields.strings("sample")
        dryRun = try fields.bool("dryRun")
    }
}

/// A record written back to an older version.
public struct RevertView: ManagementResult, Equatable {
    /// The record as saved, as CloudKit's records carry it.
    public var record: JSONValue

    init(_ record: Record) { self.record = RecordEncoder(numbersAsStrings: false).json(record) }

    public var json: JSONValue { ["record": record] }

    public init(json: JSONValue) throws { record = try AnswerFields(json).value("record") }
}

/// How long an environment keeps replaced versions and its trash, and what they take.
public struct HistoryRetentionView: ManagementResult, Equatable {
    /// The retention in seconds.
    public var seconds: Int64
    /// Whether it is the server's default (`--history-retention`) rather than the environment's own.
    public var isDefault: Bool
    /// The bytes of the versions kept.
    public var historyBytes: Int64

    init(milliseconds: Int64, isDefault: Bool, historyBytes: Int64) {
        seconds = milliseconds / 1000
        self.isDefault = isDefault
        self.historyBytes = historyBytes
    }

    public var json: JSONValue { ["seconds": .integer(seconds), "default": .bool(isDefault), "historyBytes": .integer(historyBytes)] }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        seconds = try fields.int64("seconds")
        isDefault = try fields.bool("default")
        historyBytes = try fields.int64("historyBytes")
    }
}
