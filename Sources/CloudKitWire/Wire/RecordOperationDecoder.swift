import CloudStore

/// Reads the `operations` of `records/modify` into ``RecordOperation``s, using the schema to read
/// each field value as its field's type.
public struct RecordOperationDecoder {
    /// The environment's schema, for declared field types.
    public let schema: Schema
    public let values = FieldValueDecoder()

    /// Record types of records the operations name without a `recordType` (updates usually).
    public var existingTypes: [String: String] = [:]

    /// A decoder reading field values as `schema` declares them.
    public init(schema: Schema) { self.schema = schema }

    /// Names of records whose operation sets fields but gives no `recordType`: their stored type
    /// tells how to read the values.
    public static func namesNeedingTypes(_ operations: [WireValue]) -> [String] {
        operations.compactMap { operation in
            let record = operation["record"]
            guard !record["recordType"].isPresent, record["fields"].isPresent else { return nil }
            return record["recordName"].json?.stringValue
        }
    }

    /// Names of records whose scanned operation sets fields but gives no `recordType`.
    public static func namesNeedingTypes(_ operations: [ScannedOperation]) -> [String] {
        operations.compactMap { operation in
            operation.recordType == nil && operation.fields != nil ? operation.recordName : nil
        }
    }

    /// Reads one scanned operation, the `index`th of its body, as ``operation(_:)-(WireValue)``
    /// reads it from a tree.
    public func operation(_ scanned: ScannedOperation, at index: Int) throws(WireError) -> RecordOperation {
        var operation = RecordOperation(
            scanned.kind, recordName: scanned.recordName, recordType: scanned.recordType,
            recordChangeTag: scanned.recordChangeTag, desiredKeys: scanned.desiredKeys)
        if !scanned.kind.isDelete, let fields = scanned.fields {
            let declared = declaredType(scanned.recordType, named: scanned.recordName)
            operation.fields.reserveCapacity(fields.count)
            for field in fields {
                try set(
                    field.name, to: field.value, hint: field.hint, declared: declared,
                    at: "operations[\(index)].record.fields.\(field.name).value", in: &operation)
            }
        }
        return operation
    }

    /// Reads one Operation Dictionary.
    public func operation(_ wire: WireValue) throws(WireError) -> RecordOperation {
        try wire.requireObjectIfPresent()
        guard wire.isPresent else { throw WireError("\(wire.path) must be an operation dictionary") }
        let typeName = try wire["operationType"].requiredString()
        guard let kind = RecordOperation.Kind(rawValue: typeName) else {
            throw WireError(
                "\(wire["operationType"].path) '\(typeName)' is not one of \(RecordOperation.Kind.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        let record = wire["record"]
        try record.requireObjectIfPresent()
        guard record.isPresent else { throw WireError("\(record.path) is required") }

        let recordName = try record["recordName"].string()
        let recordType = try record["recordType"].string()
        var operation = RecordOperation(
            kind, recordName: recordName, recordType: recordType, recordChangeTag: try record["recordChangeTag"].string(),
            desiredKeys: try wire["desiredKeys"].strings())

        // CloudKit JS strips fields from deletes; other clients may not, and they are ignored.
        let fieldsWire = record["fields"]
        if !kind.isDelete, let fields = try fieldsWire.object() {
            let declared = declaredType(recordType, named: recordName)
            // Sized once: grown a field at a time, the dictionary was made again as it grew.
            operation.fields.reserveCapacity(fields.count)
            for (name, fieldJSON) in fields {
                let field = fieldsWire.member(name, fieldJSON)
                try field.requireObjectIfPresent()
                let hint = try field["type"].string()
                let value = field["value"]
                try set(name, to: value.json, hint: hint, declared: declared, at: value.path, in: &operation)
            }
        }
        if ShareWire.isShare(record, recordType: recordType) { operation.share = try ShareWire.change(record) }
        let parent = record["parent"]
        if record.json?["parent"] != nil {
            if parent.isPresent {
                operation.parent = .some(try parent["recordName"].requiredString())
            } else {
                operation.parent = .some(nil)
            }
        }
        return operation
    }
}

extension RecordOperationDecoder {
    /// The schema's definition of the record an operation saves: of its `recordType`, else of
    /// the stored type of the record it names.
    private func declaredType(_ recordType: String?, named recordName: String?) -> RecordTypeDefinition? {
        (recordType ?? recordName.flatMap { existingTypes[$0] }).flatMap { schema.recordType($0) }
    }

    /// Sets field `name` of `operation` to `json` read as its type, or clears it for `nil`;
    /// `path` names the value in the body, for an error.
    private func set(
        _ name: String, to json: JSONValue?, hint: String?, declared: RecordTypeDefinition?, at path: @autoclosure () -> String,
        in operation: inout RecordOperation
    ) throws(WireError) {
        if let value = try values.decode(json, hint: hint, declared: declared?.field(name)?.type, at: path()) {
            operation.fields[name] = value
        } else {
            operation.clearedFields.insert(name)
        }
    }
}

extension RecordTypeDefinition? {
    fileprivate func field(_ name: String) -> FieldDefinition? { self?.field(name) }
}
