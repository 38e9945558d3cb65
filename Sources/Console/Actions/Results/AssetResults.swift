import CloudKitWire
import CloudStore

/// A file stored for an ASSET field through the console or the management API, as the data
/// API's upload URL stores one: the value a record save takes for the field, by its receipt.
public struct UploadedAssetView: ManagementResult, Equatable {
    /// The base64 SHA-256 of the content.
    public var fileChecksum: String
    /// The content's size in bytes.
    public var size: Int64
    /// The receipt a `records/modify` takes as the field's value, for a limited time.
    public var receipt: String

    init(_ asset: UploadedAsset) {
        fileChecksum = asset.fileChecksum
        size = asset.size
        receipt = asset.receipt
    }

    public var json: JSONValue { ["fileChecksum": .string(fileChecksum), "size": .integer(size), "receipt": .string(receipt)] }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        fileChecksum = try fields.string("fileChecksum")
        size = try fields.int64("size")
        receipt = try fields.string("receipt")
    }

    /// The field of a `records/modify` operation holding this file.
    public var fieldValue: JSONValue { ["value": json, "type": .string(FieldType(.asset).wireName)] }
}
