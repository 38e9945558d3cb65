import CloudKitWire
import CloudStore

/// A per-user export written to a file of a private folder, which whoever sends it removes.
public struct UserExportFile: Sendable {
    /// The archive.
    public var path: String
    /// What it holds.
    public var summary: UserExportSummary
}

/// What a per-user erasure removed, or in a dry run would remove.
public struct UserErasureView: ManagementResult, Equatable {
    /// The counts.
    public var erasure: UserErasure

    init(_ erasure: UserErasure) { self.erasure = erasure }

    /// The names of the counts, in the order pages and the command line show them. Key paths are
    /// not `Sendable`; this constant list is never changed, so sharing it is safe.
    nonisolated(unsafe) static let countNames: [(name: String, path: WritableKeyPath<UserErasure.Counts, Int>)] = [
        ("privateZones", \.privateZones), ("privateRecords", \.privateRecords), ("shares", \.shares),
        ("participations", \.participations), ("publicRecordsDeleted", \.publicRecordsDeleted),
        ("publicRecordsReassigned", \.publicRecordsReassigned), ("sharedRecords", \.sharedRecords), ("subscriptions", \.subscriptions),
        ("pushTokens", \.pushTokens), ("keptVersions", \.keptVersions),
    ]

    public var json: JSONValue {
        var environments = JSONObject()
        for (environment, counts) in erasure.environments {
            environments[environment.rawValue] = .object(
                JSONObject(Self.countNames.map { ($0.name, .integer(Int64(counts[keyPath: $0.path]))) }))
        }
        return [
            "userRecordName": .string(erasure.userRecordName), "name": .string(erasure.name), "dryRun": .bool(erasure.dryRun),
            "environments": .object(environments), "sessions": .integer(Int64(erasure.sessions)),
            "accountRemoved": .bool(erasure.accountRemoved), "requestLogEntries": .integer(Int64(erasure.requestLogEntries)),
            "anonymousName": ManagementActions.optional(erasure.anonymousName),
        ]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        erasure = UserErasure(
            userRecordName: try fields.string("userRecordName"), name: try fields.string("name"), dryRun: try fields.bool("dryRun"))
        for (name, value) in json["environments"]?.objectValue ?? [:] {
            var counts = UserErasure.Counts()
            for count in Self.countNames {
                counts[keyPath: count.path] = Int(value[count.name]?.int64Value(acceptingNumericString: false) ?? 0)
            }
            erasure.environments[try Environment(parsing: name)] = counts
        }
        erasure.sessions = Int(try fields.int64("sessions"))
        erasure.accountRemoved = try fields.bool("accountRemoved")
        erasure.requestLogEntries = Int(try fields.int64("requestLogEntries"))
        erasure.anonymousName = try fields.optionalString("anonymousName")
    }
}
