import CloudKitWire
import CloudStore

/// A seed of development, as the seeds list shows it.
public struct SeedView: ManagementResult, Equatable {
    /// Its name.
    public var name: String
    /// When it was saved, in milliseconds since 1970.
    public var created: Int64
    /// Who saved it.
    public var createdBy: String
    /// Its database: `public`, or `private(_user)`.
    public var database: String
    /// What it holds, in words.
    public var selection: String
    /// Its record types.
    public var recordTypes: [String]
    /// Its records.
    public var records: Int64
    /// The asset blobs it keeps.
    public var blobs: Int64
    /// Their bytes.
    public var blobBytes: Int64

    init(_ seed: SeedSummary) {
        name = seed.name
        created = seed.created
        createdBy = seed.createdBy
        database = seed.database.description
        selection = seed.selection
        recordTypes = seed.recordTypes
        records = Int64(seed.records)
        blobs = Int64(seed.blobs)
        blobBytes = seed.blobBytes
    }

    public var json: JSONValue {
        [
            "name": .string(name), "created": .integer(created), "createdBy": .string(createdBy), "database": .string(database),
            "selection": .string(selection), "recordTypes": .array(recordTypes.map(JSONValue.string)), "records": .integer(records),
            "blobs": .integer(blobs), "blobBytes": .integer(blobBytes),
        ]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        name = try fields.string("name")
        created = try fields.int64("created")
        createdBy = try fields.string("createdBy")
        database = try fields.string("database")
        selection = try fields.string("selection")
        recordTypes = try fields.strings("recordTypes")
        records = try fields.int64("records")
        blobs = try fields.int64("blobs")
        blobBytes = try fields.int64("blobBytes")
    }
}

/// A container's seeds, by name.
public struct SeedsView: ManagementResult, Equatable {
    /// The seeds.
    public var seeds: [SeedView]

    init(_ seeds: [SeedSummary]) { self.seeds = seeds.map(SeedView.init) }

    public var json: JSONValue { ["seeds": .array(seeds.map(\.json))] }

    public init(json: JSONValue) throws { seeds = try AnswerFields(json).array("seeds", SeedView.init(json:)) }
}

/// The fields of a container marked personal, as `Type.field`, sorted.
public struct PersonalFieldsView: ManagementResult, Equatable {
    /// The fields.
    public var fields: [String]

    init(_ fields: PersonalFields) { self.fields = fields.fields.sorted().map(\.description) }

    /// Whether `field` of `recordType` is marked.
    public func contains(_ field: String, of recordType: String) -> Bool { fields.contains("\(recordType).\(field)") }

    public var json: JSONValue { ["personalFields": .array(fields.map(JSONValue.string))] }

    public init(json: JSONValue) throws { fields = try AnswerFields(json).strings("personalFields") }
}

/// What a masked copy from production to development did.
public struct MaskedCopyView: ManagementResult, Equatable {
    /// Records written into development.
    public var copied: Int64
    /// Records development held as they are already.
    public var unchanged: Int64
    /// Personal values replaced by fakes.
    public var maskedValues: Int64
    /// The personal fields masked, as `Type.field`.
    public var maskedFields: [String]
    /// Zones made in development.
    public var zonesCreated: [String]
    /// Asset blobs copied.
    public var blobs: Int64

    init(_ outcome: MaskedCopyOutcome) {
        copied = Int64(outcome.copied)
        unchanged = Int64(outcome.unchanged)
        maskedValues = Int64(outcome.maskedValues)
        maskedFields = outcome.maskedFields
        zonesCreated = outcome.zonesCreated
        blobs = Int64(outcome.blobs)
    }

    public var json: JSONValue {
        [
            "copied": .integer(copied), "unchanged": .integer(unchanged), "maskedValues": .integer(maskedValues),
            "maskedFields": .array(maskedFields.map(JSONValue.string)), "zonesCreated": .array(zonesCreated.map(JSONValue.string)),
            "blobs": .integer(blobs),
        ]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        copied = try fields.int64("copied")
        unchanged = try fields.int64("unchanged")
        maskedValues = try fields.int64("maskedValues")
        maskedFields = try fields.strings("maskedFields")
        zonesCreated = try fields.strings("zonesCreated")
        blobs = try fields.int64("blobs")
    }
}

/// A seed deleted.
public struct SeedDeletion: ManagementResult, Equatable {
    /// Its name.
    public var deleted: String

    public var json: JSONValue { ["deleted": .string(deleted)] }

    public init(json: JSONValue) throws { deleted = try AnswerFields(json).string("deleted") }

    init(deleted: String) { self.deleted = deleted }
}
