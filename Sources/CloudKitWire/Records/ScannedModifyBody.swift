import CloudStore

/// A `records/modify` body read straight from its bytes, without a JSON tree, when it has the
/// shape clients send: operations of a known type on records with plain fields.
///
/// Scanning accepts only bodies that the tree reader (``RecordsExchange/modifyRequest(_:in:schema:)``
/// over a parsed body) reads without error up to the field values, and reads them to the same
/// request. For anything else — invalid JSON, a repeated key, a mistyped or missing member, shares,
/// parents, short GUIDs — it gives `nil`, and the body is parsed as a tree, which finds the same
/// error it always did.
public struct ScannedModifyBody: Sendable {
    /// The body's members other than `operations`, in order, each as the JSON parser reads it.
    public let envelope: JSONValue
    /// The operations, in order.
    public let operations: [ScannedOperation]

    /// The body of `bytes`, or `nil` when it is not of the shape scanning reads.
    public static func scan(_ bytes: [UInt8]) -> ScannedModifyBody? {
        JSONParser.scanBody(bytes, around: "operations") { parser, depthLimit throws(JSONParseError) in
            try parser.readOperations(depthLimit: depthLimit)
        }
        .map { ScannedModifyBody(envelope: $0.envelope, operations: $0.member) }
    }
}

/// One operation of a scanned `records/modify` body, its field values not yet read as types.
public struct ScannedOperation: Sendable {
    /// `operationType`.
    public let kind: RecordOperation.Kind
    /// `record.recordName`, `nil` when absent or `null`.
    public let recordName: String?
    /// `record.recordType`, `nil` when absent or `null`.
    public let recordType: String?
    /// `record.recordChangeTag`, `nil` when absent or `null`.
    public let recordChangeTag: String?
    /// The operation's `desiredKeys`, `nil` when absent or `null`.
    public let desiredKeys: [String]?
    /// `record.fields` in order, `nil` when absent or `null`.
    public let fields: [ScannedField]?
}

/// One member of a scanned record's `fields`.
public struct ScannedField: Sendable {
    /// The field's name.
    public let name: String
    /// The field's `type`, `nil` when absent or `null`.
    public let hint: String?
    /// The field's `value`, `nil` when absent or `null` (or the whole field `null`): the field is cleared.
    public let value: JSONValue?
}
